#!/usr/bin/env python3
"""Writes rfc8949-appendix-a.json from cbor/test-vectors' appendix_a.json (RFC 7049/8949 appendix A).

Each case: the item's hex and either the value in a small notation that MendWebAuthnTests renders the same way
(integers in decimal, floats as `f:` and their double's bits in hex, byte strings as `h'…'`, text as `t:` and its
UTF-8 in hex, arrays `[…]`, maps `{k:v,…}` in order, true, false, null) or the refusal Mend's subset gives:
`unsupported` (an indefinite length, a tag, undefined, a simple value) or `malformed` (RFC 8949 made the two-byte
simple value 24 not well-formed).

    python3 make-rfc8949-fixture.py appendix_a.json > rfc8949-appendix-a.json
"""
import json, math, struct, sys


def notation(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "f:nan" if math.isnan(value) else "f:" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "t:" + value.encode().hex()
    if isinstance(value, list):
        return "[" + ",".join(notation(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(notation(int(k) if k.lstrip("-").isdigit() else k) + ":" + notation(v)
                              for k, v in value.items()) + "}"
    raise ValueError(value)


def case(entry):
    raw = bytes.fromhex(entry["hex"])
    diagnostic = entry.get("diagnostic")
    if raw[0] >> 5 == 6:
        return {"refused": "unsupported", "why": "a tag"}
    if entry["hex"] == "f818":
        return {"refused": "malformed", "why": "simple(24): not well-formed since RFC 8949"}
    if diagnostic in ("undefined",) or (diagnostic or "").startswith("simple("):
        return {"refused": "unsupported", "why": diagnostic}
    if diagnostic in ("Infinity", "-Infinity", "NaN"):
        return {"value": notation(float(diagnostic.lower().replace("infinity", "inf")))}
    if diagnostic is not None and diagnostic.startswith("h'"):
        return {"value": diagnostic}
    if diagnostic == "{1: 2, 3: 4}":
        return {"value": "{1:2,3:4}"}
    if not entry["roundtrip"] and any(b in raw for b in (0x5F, 0x7F, 0x9F, 0xBF)) and raw[0] not in (0xF9, 0xFA, 0xFB):
        return {"refused": "unsupported", "why": "an indefinite length"}
    return {"value": notation(entry["decoded"])}


cases = [dict(hex=entry["hex"], **case(entry)) for entry in json.load(open(sys.argv[1]))]
json.dump(cases, sys.stdout, indent=1)
print()
