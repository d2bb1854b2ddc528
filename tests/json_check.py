#!/usr/bin/python3
"""json_check.py SCHEMA FILE...: each FILE (one JSON document, or JSON Lines
with --lines) is valid against SCHEMA, and no GUID value in it is in ip
link's colon form (docs/json.md: one GUID form per document). Exit 0 when
all are, 1 naming the first problem of each file that is not, 77 (meson's
skip) when python3-jsonschema is missing. --expect-invalid inverts: each
FILE must be rejected (the negative tests)."""
import json
import re
import sys

try:
    import jsonschema
except ImportError:
    print("json_check: python3-jsonschema is missing (scripts/install-deps)", file=sys.stderr)
    sys.exit(77)

COLON_GUID = re.compile(r"^([0-9a-fA-F]{2}:){7}[0-9a-fA-F]{2}$")
# Free text and shell commands quote the form the command takes.
PROSE = {"summary", "desc", "command", "restore", "title", "why", "detail", "error", "msg",
         "notes", "steps", "content", "old_content", "note", "reason", "kmsg_errors"}


def colon_guids(o, path="$"):
    if isinstance(o, dict):
        for k, v in o.items():
            if k not in PROSE:
                yield from colon_guids(v, path + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from colon_guids(v, "%s[%d]" % (path, i))
    elif isinstance(o, str) and COLON_GUID.match(o):
        yield path, o


def problems(validator, doc):
    errs = list(validator.iter_errors(doc))
    out = []
    if errs:
        # The deepest cause under oneOf/anyOf, not "$: {...} is not valid".
        e = jsonschema.exceptions.best_match(errs)
        while e.context:
            e = max(e.context, key=lambda c: len(c.absolute_path))
        out.append("%s: %s" % (e.json_path, e.message[:200]))
    out += ["%s: GUID %s in ip link's form, not rdma's" % g for g in colon_guids(doc)]
    return out


def main(argv):
    invert = "--expect-invalid" in argv
    lines = "--lines" in argv
    args = [a for a in argv if not a.startswith("--")]
    schema = json.load(open(args[0]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    rc = 0
    for f in args[1:]:
        text = open(f).read()
        try:
            docs = [json.loads(l) for l in text.splitlines() if l.strip()] if lines else [json.loads(text)]
        except ValueError as e:
            print("%s: not JSON (%s): %.100r" % (f, e, text))
            rc = 1
            continue
        found = [p for d in docs for p in problems(validator, d)]
        if invert and not found:
            print("%s: accepted by %s, but should not be" % (f, args[0]))
            rc = 1
        elif invert:
            print("%s: rejected as it should be: %s" % (f, found[0]))
        elif found:
            print("%s: not valid against %s:\n  %s" % (f, args[0], "\n  ".join(found)))
            rc = 1
        else:
            print("%s: valid against %s (%d document%s)" % (f, args[0], len(docs), "" if len(docs) == 1 else "s"))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
