#!/usr/bin/env python3
# A minimal testee: validates ApiVersions requests v0-v2 (header v1, empty body).
import json, struct, sys

def validate(q):
    if q["api_key"] != 18 or q["direction"] != "request" or q["version"] > 2:
        return {"result": "unsupported"}
    b = bytes.fromhex(q["frame"])
    if len(b) < 14 or struct.unpack(">i", b[:4])[0] != len(b) - 4:
        return {"result": "rejected", "error": "short frame or wrong size prefix"}
    key, version, correlation_id, n = struct.unpack(">hhih", b[4:14])
    if key != 18 or version != q["version"]:
        return {"result": "rejected", "error": "the header names another API or version"}
    if n < -1 or 14 + max(n, 0) != len(b):  # client_id: int16 length, -1 is null
        return {"result": "rejected", "error": "bad client_id length or trailing bytes"}
    return {"result": "ok"}

for line in sys.stdin:
    q = json.loads(line)
    if q["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "example",
                          "version": "0", "operations": ["validate"]}), flush=True)
    else:
        print(json.dumps(dict(validate(q), seq=q["seq"])), flush=True)
