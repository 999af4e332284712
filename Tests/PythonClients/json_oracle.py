"""Python's `json` as an outside reader of the texts Mend's JSON lexer reads (MendCoreTests' differential test).

Reads one JSON object per line on standard input: {"hex": the text's bytes, "mend": Mend's reading of it with
duplicates last-wins, as compact JSON, or null}. Writes one line per input: {"ok": Python read it, "equal": Python's
value equals Mend's, "flags": what Python read that Mend refuses by design}. The bytes are decoded as UTF-8 first
(json.loads on bytes would also try UTF-16 and UTF-32): the comparison is of the two parsers, not of encodings.
"""

import json
import math
import sys


def flags_of(value, depth=0, flags=None):
    flags = set() if flags is None else flags
    if isinstance(value, (list, dict)) and depth + 1 > 256:
        flags.add("deep")  # more nested brackets than Mend's bound
    if isinstance(value, float) and not math.isfinite(value):
        flags.add("nonfinite")
    elif isinstance(value, bool):
        pass
    elif isinstance(value, int) and not -(2**63) <= value < 2**63:
        flags.add("bigint")
    elif isinstance(value, str):
        if any(0xD800 <= ord(c) < 0xE000 for c in value):
            flags.add("surrogate")
    elif isinstance(value, list):
        for element in value:
            flags_of(element, depth + 1, flags)
    elif isinstance(value, dict):
        for key, element in value.items():
            flags_of(key, depth + 1, flags)
            flags_of(element, depth + 1, flags)
    return flags


def main():
    sys.setrecursionlimit(10000)
    for line in sys.stdin:
        case = json.loads(line)
        answer = {"ok": False, "equal": False, "flags": []}
        try:
            value = json.loads(bytes.fromhex(case["hex"]).decode("utf-8"))
        except (ValueError, RecursionError):
            pass
        else:
            answer["ok"] = True
            answer["flags"] = sorted(flags_of(value))
            if case["mend"] is not None:
                answer["equal"] = json.loads(case["mend"]) == value
        print(json.dumps(answer), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
