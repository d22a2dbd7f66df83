#!/usr/bin/env python3
"""Writes the MSCCL algorithm XML test inputs of tests/data/msccl/ (run it from
anywhere; the files are checked in, this script documents how they were made).

Written from the format as msccl-tools' ir_to_xml emits it (the "old format":
<algo> <gpu> <tb> <step s type srcbuf srcoff dstbuf dstoff cnt depid deps
hasdep/>) and the collectives of msccl-tools' collectives.py; no file here is
copied from msccl-tools. Correct programs: ring allreduce (fused rrs/rrcs/rcs,
in place), ring allgather (out of place, cpy into the output), direct
alltoall (one threadblock per peer), all-pairs allreduce (scratch buffer,
depid/deps/hasdep). Broken ones: see BROKEN below; the unit tests say what
each must produce. MUTANTS below carry their expected verdicts in a comment
before <algo> ("<!-- expect: MODE STATUS [PROPERTY=STATUS ...]; ... -->", one
clause per mode the file declares), which
tests/unit/schedules/formats/msccl_xml_test.cpp checks for every file here.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def step(s, t, sb="i", so=-1, db="o", do=-1, cnt=1, depid=-1, deps=-1, hasdep=0):
    return dict(s=s, type=t, srcbuf=sb, srcoff=so, dstbuf=db, dstoff=do, cnt=cnt, depid=depid, deps=deps, hasdep=hasdep)


def render(name, coll, ngpus, nchunks, inplace, gpus, outofplace=None, expect=None):
    """gpus: list of (i_chunks, o_chunks, s_chunks, [ (send, recv, chan, [steps]) ]);
    outofplace: written when not None (msccl-tools' ir_to_xml writes only inplace);
    expect: the expected verdicts, written in a comment before <algo>."""
    oop = "" if outofplace is None else f' outofplace="{1 if outofplace else 0}"'
    out = [f"<!-- expect: {expect} -->"] if expect else []
    out += [f'<algo name="{name}" proto="Simple" nchannels="1" nchunksperloop="{nchunks}" ngpus="{ngpus}" '
            f'coll="{coll}" inplace="{1 if inplace else 0}"{oop}>']
    for g, (ic, oc, sc, tbs) in enumerate(gpus):
        out.append(f'  <gpu id="{g}" i_chunks="{ic}" o_chunks="{oc}" s_chunks="{sc}">')
        for t, (snd, rcv, chan, steps) in enumerate(tbs):
            out.append(f'    <tb id="{t}" send="{snd}" recv="{rcv}" chan="{chan}">')
            for k, st in enumerate(steps):
                st = dict(st, s=k)
                attrs = " ".join(f'{a}="{st[a]}"' for a in
                                 ["s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps", "hasdep"])
                out.append(f"      <step {attrs}/>")
            out.append("    </tb>")
        out.append("  </gpu>")
    out.append("</algo>")
    return "\n".join(out) + "\n"


def ring_allreduce(p):
    """In place, chunk factor p: reduce-scatter with rrs, rrcs closes it and
    starts the allgather, rcs forwards, r ends."""
    gpus = []
    for r in range(p):
        steps = [step(0, "s", "i", r, "i", r)]
        for k in range(1, p - 1):
            c = (r - k) % p
            steps.append(step(0, "rrs", "i", c, "i", c))
        c = (r + 1) % p
        steps.append(step(0, "rrcs", "i", c, "i", c))
        for k in range(p - 2):
            c = (r - k) % p
            steps.append(step(0, "rcs", "i", c, "i", c))
        c = (r + 2) % p
        steps.append(step(0, "r", "i", c, "i", c))
        gpus.append((p, p, 0, [((r + 1) % p, (r - 1) % p, 0, steps)]))
    return gpus


def ring_allgather(p):
    """Out of place, one chunk per rank: cpy into o[r], then the ring."""
    gpus = []
    for r in range(p):
        steps = [step(0, "cpy", "i", 0, "o", r), step(0, "s", "o", r, "o", r)]
        for k in range(1, p - 1):
            c = (r - k) % p
            steps.append(step(0, "rcs", "o", c, "o", c))
        c = (r + 1) % p
        steps.append(step(0, "r", "o", c, "o", c))
        gpus.append((1, p, 0, [((r + 1) % p, (r - 1) % p, 0, steps)]))
    return gpus


def direct_alltoall(p):
    """Out of place, one chunk per (source, destination): one threadblock per
    peer sends i[peer] and receives o[peer]; tb 0 also copies i[r] to o[r]."""
    gpus = []
    for r in range(p):
        tbs = []
        for j in [x for x in range(p) if x != r]:
            steps = [step(0, "s", "i", j, "o", r), step(0, "r", "i", r, "o", j)]
            if not tbs:
                steps.insert(0, step(0, "cpy", "i", r, "o", r))
            tbs.append((j, j, 0, steps))
        gpus.append((p, p, 0, tbs))
    return gpus


def allpairs_allreduce(p):
    """In place, chunk factor p. Peer threadblocks: send my contribution to
    chunk j to gpu j, receive gpu j's contribution to chunk r into scratch
    s[j] (hasdep: the reducer waits for it); a reducer threadblock (no peers)
    adds each s[j] into i[r]; then each peer threadblock sends the reduced
    i[r] (after the reducer's last step) and receives i[j]."""
    gpus = []
    for r in range(p):
        peers = [x for x in range(p) if x != r]
        red = len(peers)  # the reducer's tb id
        tbs = []
        for j in peers:
            tbs.append((j, j, 0, [step(0, "s", "i", j, "s", r), step(0, "r", "i", -1, "s", j, hasdep=1),
                                  step(0, "s", "i", r, "i", r, depid=red, deps=len(peers) - 1),
                                  step(0, "r", "i", -1, "i", j)]))
        red_steps = []
        for t, j in enumerate(peers):
            red_steps.append(step(0, "re", "s", j, "i", r, depid=t, deps=1, hasdep=1 if t == len(peers) - 1 else 0))
        tbs.append((-1, -1, 0, red_steps))
        gpus.append((p, p, p, tbs))
    return gpus


def write(fname, text):
    with open(os.path.join(HERE, fname), "w") as f:
        f.write(text)


def main():
    for p in (4, 8):
        write(f"ring_allreduce_{p}.xml", render(f"ring_allreduce_{p}", "allreduce", p, p, True, ring_allreduce(p)))
        write(f"ring_allgather_{p}.xml", render(f"ring_allgather_{p}", "allgather", p, p, False, ring_allgather(p)))
        write(f"alltoall_{p}.xml", render(f"alltoall_{p}", "alltoall", p, p, False, direct_alltoall(p)))
    write("allpairs_allreduce_4.xml", render("allpairs_allreduce_4", "allreduce", 4, 4, True, allpairs_allreduce(4)))

    # BROKEN (violations, exit 1)
    # missing chunk: the allgather ring stops one hop early (the last rcs
    # becomes r, the last r is dropped): every gpu lacks chunk r+1.
    g = ring_allgather(4)
    for r in range(4):
        steps = g[r][3][0][3]
        steps[-2] = dict(steps[-2], type="r")
        del steps[-1]
    write("broken_missing_chunk.xml", render("broken_missing_chunk", "allgather", 4, 4, False, g))
    # chunk reduced twice: gpu 2's reducer adds s[0] a second time.
    g = allpairs_allreduce(4)
    red = g[2][3][-1][3]
    red.insert(1, dict(red[0], depid=0, deps=1, hasdep=0))
    for t in g[2][3][:-1]:  # the peers still wait for the reducer's last step
        t[3][2] = dict(t[3][2], deps=len(red) - 1)
    write("broken_reduced_twice.xml", render("broken_reduced_twice", "allreduce", 4, 4, True, g))
    # send without matching receive: gpu 3's threadblock for peer 1 lacks its r.
    g = direct_alltoall(4)
    tb = [t for t in g[3][3] if t[0] == 1][0]
    del tb[3][-1]
    write("broken_unmatched_send.xml", render("broken_unmatched_send", "alltoall", 4, 4, False, g))
    # bad dependency: gpu 1's reducer waits for a step without hasdep.
    g = allpairs_allreduce(4)
    for t in g[1][3][:-1]:
        t[3][1] = dict(t[3][1], hasdep=0)
    write("broken_dependency_hasdep.xml", render("broken_dependency_hasdep", "allreduce", 4, 4, True, g))
    # dependency cycle: gpu 0's reducer waits for its own last step.
    g = allpairs_allreduce(4)
    red = g[0][3][-1][3]
    red[0] = dict(red[0], depid=len(g[0][3]) - 1, deps=len(red) - 1)
    write("broken_dependency_cycle.xml", render("broken_dependency_cycle", "allreduce", 4, 4, True, g))
    # race: gpu 0's peer threadblocks send i[0] without waiting for the reducer.
    g = allpairs_allreduce(4)
    for t in g[0][3][:-1]:
        t[3][2] = dict(t[3][2], depid=-1, deps=-1)
    write("broken_race.xml", render("broken_race", "allreduce", 4, 4, True, g))

    # MUTANTS (regression data: each states its verdicts per mode)
    # two threadblocks of gpu 0 send to gpu 1 on channel 0 (the one for peer 2
    # now sends to 1): a connection the runtime gives to one threadblock.
    g = direct_alltoall(4)
    g[0][3][1] = (1,) + g[0][3][1][1:]
    write("broken_two_senders_one_channel.xml",
          render("broken_two_senders_one_channel", "alltoall", 4, 4, False, g,
                 expect="out-of-place violated matching=violated"))
    # two threadblocks of gpu 0 receive from gpu 1 on channel 0.
    g = direct_alltoall(4)
    g[0][3][1] = (g[0][3][1][0], 1) + g[0][3][1][2:]
    write("broken_two_receivers_one_channel.xml",
          render("broken_two_receivers_one_channel", "alltoall", 4, 4, False, g,
                 expect="out-of-place violated matching=violated"))
    # coll="custom": matching and causality are judged, what needs the
    # collective is not.
    write("custom_ring_allgather_4.xml",
          render("custom_ring_allgather_4", "custom", 4, 4, False, ring_allgather(4),
                 expect="out-of-place unknown matching=holds causality=holds exactly-once=unknown "
                        "postcondition=unknown"))
    g = direct_alltoall(4)
    tb = [t for t in g[3][3] if t[0] == 1][0]
    del tb[3][-1]
    write("broken_custom_unmatched_send.xml",
          render("broken_custom_unmatched_send", "custom", 4, 4, False, g,
                 expect="out-of-place violated matching=violated postcondition=unknown"))
    # the in-place ring allreduce declared out of place too: out of place its
    # results stay in the input buffer and the output is never written.
    write("ring_allreduce_4_declared_out_of_place.xml",
          render("ring_allreduce_4_declared_out_of_place", "allreduce", 4, 4, True, ring_allreduce(4),
                 outofplace=True, expect="in-place holds; out-of-place violated postcondition=violated"))
    # correct out of place, racy in place: a sender threadblock reads i[0]
    # while a receiver threadblock stores the sum at o[0], which is i[0] in place.
    g = [(1, 1, 0, [(1 - r, -1, 0, [step(0, "s", "i", 0, "i", 0)]),
                    (-1, 1 - r, 0, [step(0, "rrc", "i", 0, "o", 0)])]) for r in range(2)]
    write("allreduce_2_race_in_place.xml",
          render("allreduce_2_race_in_place", "allreduce", 2, 1, True, g, outofplace=True,
                 expect="in-place violated causality=violated; out-of-place holds"))

    # MALFORMED (bad input, exit 2)
    good = render("ring_allreduce_4", "allreduce", 4, 4, True, ring_allreduce(4))
    write("malformed_truncated.xml", good[: len(good) // 2])
    write("malformed_attribute_type.xml", good.replace('srcoff="2"', 'srcoff="two"', 1))
    write("malformed_cnt_fraction.xml", good.replace('cnt="1"', 'cnt="1.5"', 1))
    write("malformed_unknown_type.xml", good.replace('type="rrs"', 'type="rrx"', 1))
    write("malformed_dependency_range.xml",
          render("x", "allreduce", 4, 4, True, allpairs_allreduce(4)).replace('deps="1"', 'deps="7"', 1))
    write("malformed_offset_range.xml", good.replace('srcoff="3"', 'srcoff="4"', 1))
    write("malformed_ngpus.xml", good.replace('ngpus="4"', 'ngpus="5"', 1))


if __name__ == "__main__":
    main()
