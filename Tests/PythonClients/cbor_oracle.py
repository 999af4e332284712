"""cbor2 as an outside reader of the inputs Mend's CBOR decoder reads (MendWebAuthnTests' differential test).

Reads one JSON object per line on standard input: {"hex": the input's bytes}. Writes one line per input:
{"ok": cbor2 read one whole item, "notation": the item in the fixtures' notation (Vectors/make-rfc8949-fixture.py),
"outside": why the item is outside Mend's subset, or null}. Outside the subset (Mend refuses these by design): a tag,
`undefined` or another simple value, a map key that is not an integer or text, an indefinite length (found by a walk of
the bytes' heads), nesting deeper than 16, more than 4,096 items. A map with a key twice is reported as "duplicate":
cbor2 keeps the last value, Mend refuses it.

Two inputs cbor2 reads are not well-formed in RFC 8949 (§3.3) and count as refused: a break outside an
indefinite-length item, and a two-byte simple value below 32. The reasons come from a walk of the heads (cbor2 reads indefinite lengths, duplicate keys and semantic tags without a
trace of them); a key's type from cbor2's reading.
"""

import io
import json
import math
import struct
import sys

import cbor2


def notation(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "f:nan" if math.isnan(value) else "f:" + struct.pack(">d", value).hex()
    if isinstance(value, (bytes, bytearray)):
        return "h'" + bytes(value).hex() + "'"
    if isinstance(value, str):
        return "t:" + value.encode().hex()
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(notation(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(notation(key) + ":" + notation(item) for key, item in value.items()) + "}"
    raise ValueError(type(value).__name__)


class Walk:
    """The heads of the input, as RFC 8949 §3 lays them out: what Mend's subset rules are about."""

    def __init__(self, data):
        self.data, self.offset, self.items, self.depth, self.outside = data, 0, 0, 0, None
        self.malformed = False

    def argument(self, info):
        if info < 24:
            return info
        size = 1 << (info - 24)
        value = int.from_bytes(self.data[self.offset:self.offset + size], "big")
        self.offset += size
        return value

    def item(self, depth):
        self.items += 1
        self.depth = max(self.depth, depth)
        initial = self.data[self.offset]
        self.offset += 1
        major, info = initial >> 5, initial & 0x1F
        if major == 7:
            # Not well-formed in RFC 8949 (§3.3), and read by cbor2: a break outside an indefinite-length item, and a
            # two-byte simple value below 32.
            if info == 31 or (info == 24 and self.data[self.offset] < 32):
                self.malformed = True
            if info == 23:
                self.outside = self.outside or "undefined"
            elif info < 20 or info == 24:
                self.outside = self.outside or "simple"
            if info in (24, 25, 26, 27):
                self.argument(info)
            return
        if info == 31:
            self.outside = self.outside or "indefinite"
            if major in (2, 3, 4, 5):
                while self.data[self.offset] != 0xFF:
                    self.item(depth + 1)
                    if major == 5:
                        self.item(depth + 1)
                self.offset += 1
            return
        value = self.argument(info)
        if major in (2, 3):
            self.offset += value
        elif major == 4:
            for _ in range(value):
                self.item(depth + 1)
        elif major == 5:
            keys = set()
            for _ in range(value):
                start = self.offset
                self.item(depth + 1)
                try:
                    key = cbor2.loads(self.data[start:self.offset])
                    marked = (type(key).__name__, key)
                    if marked in keys:
                        self.outside = self.outside or "duplicate"
                    keys.add(marked)
                except Exception:  # noqa: BLE001 - an unhashable or odd key is judged by subset()
                    pass
                self.item(depth + 1)
        elif major == 6:
            self.outside = self.outside or "tag"
            self.item(depth + 1)


def outside(value, data):
    walk = Walk(data)
    walk.item(1)
    if walk.malformed:
        return "malformed"
    if walk.outside:
        return walk.outside
    if walk.depth > 16 or walk.items > 4096:
        return "limits"
    return subset(value)


def subset(value):
    if isinstance(value, cbor2.CBORTag):
        return "tag"
    if value is cbor2.undefined:
        return "undefined"
    if isinstance(value, cbor2.CBORSimpleValue):
        return "simple"
    if isinstance(value, (list, tuple)):
        return next((reason for reason in map(subset, value) if reason), None)
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, (int, str)):
                return "key"
            reason = subset(item)
            if reason:
                return reason
    return None


def read(data):
    stream = io.BytesIO(data)
    try:
        value = cbor2.CBORDecoder(stream).decode()
    except Exception:  # noqa: BLE001 - any refusal of cbor2's is "not read"
        return {"ok": False, "notation": None, "outside": None}
    if stream.tell() != len(data):
        return {"ok": False, "notation": None, "outside": None}
    reason = outside(value, data)
    if reason == "malformed":
        return {"ok": False, "notation": None, "outside": None}
    try:
        text = None if reason else notation(value)
    except ValueError as error:
        reason, text = f"type {error}", None
    return {"ok": True, "notation": text, "outside": reason}


for line in sys.stdin:
    print(json.dumps(read(bytes.fromhex(json.loads(line)["hex"]))), flush=True)
