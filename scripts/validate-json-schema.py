#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (draft 2020-12) with the Debian-packaged
python3-jsonschema (scripts/setup.sh installs it).

usage: validate-json-schema.py SCHEMA DOCUMENT...
exit 0: all valid; 1: a document is invalid (each error printed with its path); 2: usage or
unreadable input; 77: python3-jsonschema is not installed (tests treat that as skipped).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed; run scripts/setup.sh", file=sys.stderr)
    sys.exit(77)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"schema {argv[1]}: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    status = 0
    for path in argv[2:]:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 2
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:20]:
            where = "/".join(str(p) for p in e.absolute_path) or "(document)"
            print(f"{path}: {where}: {e.message}", file=sys.stderr)
        if errors:
            status = 1
        else:
            print(f"{path}: valid")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
