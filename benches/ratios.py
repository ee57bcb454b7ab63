#!/usr/bin/env python3
"""Turn criterion's estimates of `cargo bench --bench codec` into the README's ratio table.

Reads target/criterion/<group>/<function>/<param>/new/estimates.json (the median's point
estimate, in ns) and prints, for every group and parameter, the crate's time, the two baselines
and the ratios the targets are stated in, then the per-element costs and a verdict per target.

    cargo bench --bench codec && python3 benches/ratios.py [CRITERION_DIR]
"""
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "target", "criterion")


def median(group, func, param):
    path = os.path.join(ROOT, group, func, param, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except OSError:
        return None


def params(group):
    d = os.path.join(ROOT, group, "crate")
    if not os.path.isdir(d):
        return []
    names = [p for p in os.listdir(d) if os.path.isdir(os.path.join(d, p))]
    return sorted(names, key=lambda p: (not p.isdigit(), int(p) if p.isdigit() else 0, p))


def ns(v):
    if v is None:
        return "n/a"
    return f"{v / 1000:.2f} µs" if v >= 10_000 else f"{v:.1f} ns"


def main():
    verdicts = []
    print("| group | input | crate | copy floor | owned | crate / copy | owned / crate |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for group in ["decode", "encode", "lock_intent", "acl", "lov_comp", "whole_reply"]:
        for p in params(group):
            c, cp, ow = (median(group, f, p) for f in ("crate", "copy", "owned"))
            if None in (c, cp, ow):
                continue
            print(f"| {group} | {p} | {ns(c)} | {ns(cp)} | {ns(ow)} | "
                  f"{c / cp:.1f}× | {ow / c:.1f}× |")
            if group == "decode" and p == "mkdir_reply_complete":
                verdicts.append(("complete mkdir reply: owned / crate ≥ 3", ow / c, ow / c >= 3))
                verdicts.append(("complete mkdir reply: crate / copy ≤ 6", c / cp, c / cp <= 6))
            if group == "encode":
                verdicts.append((f"encode {p}: crate / copy ≤ 3", c / cp, c / cp <= 3))
        if group == "lock_intent":
            f = median(group, "crate_fill_only", "mkdir_reply_complete")
            if f is not None:
                print(f"| lock_intent | fill only (view decoded) | {ns(f)} | | | | |")
    print()
    print("| payload | elements | crate per element | owned per element |")
    print("|---|---:|---:|---:|")
    for group, label in [("acl", "ACL entries"), ("lov_comp", "LOV components")]:
        per = []
        for p in params(group):
            c, ow = median(group, "crate", p), median(group, "owned", p)
            if c is None or ow is None:
                continue
            n = int(p)
            per.append(c / n)
            print(f"| {label} | {n} | {ns(c / n)} | {ns(ow / n)} |")
        if len(per) >= 2:
            # Flat: the largest size costs no more per element than the smallest (the fixed
            # overhead makes small sizes dearer per element, never cheaper).
            ratio = per[-1] / per[0]
            verdicts.append((f"{label}: per-element cost, largest / smallest ≤ 1.25",
                             ratio, ratio <= 1.25))
    print()
    print("| target | measured | met |")
    print("|---|---:|---|")
    for name, v, ok in verdicts:
        print(f"| {name} | {v:.2f} | {'yes' if ok else '**no**'} |")


if __name__ == "__main__":
    main()
