#!/usr/bin/env python3
"""Validates schedule files against docs/schedule.schema.json (JSON Schema
draft 2020-12, python3-jsonschema): the JSON form against the root schema, the
JSON-lines form line by line against $defs/linesHeader and $defs/linesEntry.

usage: validate_schedule_schema.py SCHEMA FILE...
Prints one line per file, "ok FILE" or "invalid FILE: <json path>: <message>",
and exits 0; exits 3 if jsonschema (with Draft 2020-12) is missing.
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover
    print("missing python3-jsonschema (Draft202012Validator)")
    sys.exit(3)


def first_error(validator, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    e = errors[0]
    return "/" + "/".join(str(x) for x in e.absolute_path) + ": " + e.message.replace("\n", " ")[:200]


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    root = Draft202012Validator(schema)
    part = {
        name: Draft202012Validator({"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/" + name})
        for name in ("linesHeader", "linesEntry")
    }
    for path in sys.argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            first = lines[0] if lines else ""
            err = None
            if '"collcheck-schedule-lines/' in first:
                for no, line in enumerate(lines, 1):
                    if not line.strip():
                        continue
                    e = first_error(part["linesHeader" if no == 1 else "linesEntry"], json.loads(line))
                    if e:
                        err = "line %d: %s" % (no, e)
                        break
            else:
                err = first_error(root, json.loads("\n".join(lines)))
        except (ValueError, UnicodeDecodeError) as e:
            err = "not JSON: " + str(e).replace("\n", " ")[:200]
        print(("ok " + path) if err is None else ("invalid " + path + ": " + err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
