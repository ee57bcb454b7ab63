#!/usr/bin/env python3
"""Seeds of the `differential` target, from the conformance vectors (testdata/vectors/).

Every vector becomes one input in the target's format (src/lib.rs): a request `00 ‖ bytes`; a
reply `02 ‖ u16le(len(request)) ‖ request ‖ reply` and, without its request, `01 ‖ reply`; an
xattr payload `03 ‖ index in XATTR_NAMES ‖ payload`. Files are `v<tcId>[_alone].bin`.

    python3 fuzz/differential_seeds.py   # writes fuzz/corpus/differential/
"""
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ["system.posix_acl_default", "trusted.pin", "trusted.lmv", "trusted.lov", "trusted.dmv"]

vectors = json.load(open(os.path.join(ROOT, "testdata/vectors/dne_intent_vectors.json")))
out = os.path.join(ROOT, "fuzz/corpus/differential")
os.makedirs(out, exist_ok=True)
for old in os.listdir(out):  # the seeds of an earlier vector set; campaign units stay
    if old.startswith("v") and old.endswith(".bin"):
        os.remove(os.path.join(out, old))
n = 0
for group in vectors["testGroups"]:
    for t in group["tests"]:
        data = bytes.fromhex(t["hex"])
        files = {}
        if group["kind"] == "request":
            files[""] = b"\x00" + data
        elif group["kind"] == "reply":
            req = bytes.fromhex(t["request_hex"])
            files[""] = b"\x02" + struct.pack("<H", len(req)) + req + data
            files["_alone"] = b"\x01" + data
        else:
            files[""] = bytes([3, NAMES.index(group["xattr_name"])]) + data
        for suffix, body in files.items():
            with open(os.path.join(out, f"v{t['tcId']}{suffix}.bin"), "wb") as f:
                f.write(body)
            n += 1
print(f"{n} seeds in {out}")
