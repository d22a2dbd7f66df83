#!/usr/bin/env python3
"""A user's schedule generator, as a team would write one without C++:
recursive doubling allreduce on p ranks (the whole vector is one block),
printed in collcheck's schedule format /2 (docs/schedule-format.md).

    python3 rd_allreduce_gen.py P [--correct]

Non-powers of two fold the ranks above the largest power of two k onto
r - k first and unfold at the end. The defect (the default): the unfold
step sends the result back with combine "reduce" instead of "copy", so a
folded rank adds the result to its own input, which the result already
holds: its contribution counted twice. The smallest p that shows it is 3.
`collcheck fuzz --schedule-cmd 'python3 rd_allreduce_gen.py {p}'` finds
and shrinks it (tests/regression/checker/cli/fuzz_cli_test.cpp);
`--correct` prints the fixed schedule, which fuzzing must accept.
"""
import json
import sys


def transfer(peer, combine):
    return {"peer": peer, "blocks": [[0, 1]], "combine": combine}


def schedule(p, correct):
    k = 1
    while 2 * k <= p:
        k *= 2
    steps = []

    def empty_step():
        return [{"rank": r, "sends": [], "recvs": []} for r in range(p)]

    fold = empty_step()  # ranks k..p-1 hand their input to r - k
    for r in range(k, p):
        fold[r]["sends"].append(transfer(r - k, "reduce"))
        fold[r - k]["recvs"].append(transfer(r, "reduce"))
    steps.append(fold)
    mask = 1
    while mask < k:  # recursive doubling among 0..k-1
        step = empty_step()
        for r in range(k):
            step[r]["sends"].append(transfer(r ^ mask, "reduce"))
            step[r]["recvs"].append(transfer(r ^ mask, "reduce"))
        steps.append(step)
        mask *= 2
    unfold = empty_step()  # the result back to the folded ranks
    mode = "copy" if correct else "reduce"
    for r in range(k, p):
        unfold[r - k]["sends"].append(transfer(r, mode))
        unfold[r]["recvs"].append(transfer(r - k, mode))
    steps.append(unfold)
    return {
        "format": "collcheck-schedule/2",
        "collective": "allreduce",
        "p": p,
        "nblocks": 1,
        "root": 0,
        "ports": 1,
        "producer": {"tool": "rd_allreduce_gen.py", "correct": str(correct).lower()},
        "steps": steps,
    }


def main(argv):
    if len(argv) < 2 or not argv[1].isdigit() or int(argv[1]) < 1:
        print("usage: rd_allreduce_gen.py P [--correct]", file=sys.stderr)
        return 2
    json.dump(schedule(int(argv[1]), "--correct" in argv[2:]), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
