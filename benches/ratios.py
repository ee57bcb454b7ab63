#!/usr/bin/env python3
"""Turn criterion's estimates of `cargo bench --bench codec` into the ratio table of docs/performance.md.

Reads target/criterion/<group>/<function>/<param>/new/estimates.json (the median's point
estimate, in ns) and prints, for every group and parameter, the crate's time, the two baselines
and the ratios the targets are stated in; beside them, when `benches/instructions.py --json`
wrote its figures (target/instructions.json by default), the instruction counts of the same
operations under callgrind. Then the per-element costs and a verdict per target of issue 11.

    cargo bench --bench codec && python3 benches/instructions.py --json target/instructions.json
    python3 benches/ratios.py [--criterion DIR] [--instructions FILE]
"""
import argparse
import json
import os

TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target")


def load_instructions(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError:
        return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--criterion", default=os.path.join(TARGET, "criterion"))
    ap.add_argument("--instructions", default=os.path.join(TARGET, "instructions.json"))
    args = ap.parse_args()
    root = args.criterion
    instr = load_instructions(args.instructions)

    def median(group, func, param):
        path = os.path.join(root, group, func, param, "new", "estimates.json")
        try:
            with open(path) as f:
                return json.load(f)["median"]["point_estimate"]
        except OSError:
            return None

    def params(group):
        d = os.path.join(root, group, "crate")
        if not os.path.isdir(d):
            return []
        names = [p for p in os.listdir(d) if os.path.isdir(os.path.join(d, p))]
        return sorted(names, key=lambda p: (not p.isdigit(), int(p) if p.isdigit() else 0, p))

    def ns(v):
        if v is None:
            return "n/a"
        return f"{v / 1000:.2f} µs" if v >= 10_000 else f"{v:.1f} ns"

    # criterion group → probe operation (benches/probe.rs)
    probe_op = {"decode": "decode", "encode": "encode", "acl": "acl", "lov_comp": "lov",
                "whole_reply": "whole"}

    def icount(op, param, variant=""):
        v = instr.get(f"{op}{variant} {param}")
        return v

    def icell(v):
        return f"{v:,.0f}" if v is not None else ""

    verdicts = []
    print("| group | input | crate | copy floor | owned | crate / copy | owned / crate "
          "| crate instr. | copy instr. | owned instr. |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for group in ["decode", "encode", "lock_intent", "acl", "lov_comp", "whole_reply"]:
        for p in params(group):
            c, cp, ow = (median(group, f, p) for f in ("crate", "copy", "owned"))
            if None in (c, cp, ow):
                continue
            op = probe_op.get(group)
            ic, icp, iow = ((icount(op, p, v) if op else None) for v in ("", "_copy", "_owned"))
            if group == "encode":
                iow = None  # no owned encoder: the owned column is the owned decoder's time
            print(f"| {group} | {p} | {ns(c)} | {ns(cp)} | {ns(ow)} | "
                  f"{c / cp:.1f}× | {ow / c:.1f}× | {icell(ic)} | {icell(icp)} | {icell(iow)} |")
            if group == "encode":
                v = median(group, "crate_validated", p)
                iv = icount("encode_validated", p)
                if v is not None:
                    print(f"| encode (value validated once) | {p} | {ns(v)} | {ns(cp)} | | "
                          f"{v / cp:.1f}× | | {icell(iv)} | {icell(icp)} | |")
                    if p == "mkdir_reply_complete":
                        verdicts.append(("complete mkdir reply encode, value validated once: "
                                         "crate / copy ≤ 4 (time)", v / cp, v / cp <= 4))
                        if iv is not None:
                            verdicts.append(("complete mkdir reply encode, value validated "
                                             "once: ≤ 450 instructions", iv, iv <= 450))
                v = median(group, "crate_view", p)
                if v is not None:
                    print(f"| encode (view, no revalidation) | {p} | {ns(v)} | {ns(cp)} | | "
                          f"{v / cp:.1f}× | | {icell(icount('reencode', p))} | {icell(icp)} | |")
            if group == "lov_comp":
                v = median(group, "crate_value", p)
                if v is not None:
                    print(f"| lov_comp (owned value, `to_value`) | {p} | {ns(v)} | {ns(cp)} | "
                          f"{ns(ow)} | {v / cp:.1f}× | {ow / v:.1f}× | "
                          f"{icell(icount('lov_value', p))} | {icell(icp)} | {icell(iow)} |")
            if group == "decode" and p == "mkdir_reply_complete":
                verdicts.append(("complete mkdir reply decode: crate / copy ≤ 5 (time)",
                                 c / cp, c / cp <= 5))
                verdicts.append(("complete mkdir reply decode: owned / crate ≥ 8 (time)",
                                 ow / c, ow / c >= 8))
                if ic is not None:
                    verdicts.append(("complete mkdir reply decode: ≤ 400 instructions", ic,
                                     ic <= 400))
            elif group == "decode":
                verdicts.append((f"decode {p}: crate / copy ≤ 5 (time)", c / cp, c / cp <= 5))
            if group == "encode" and p == "mkdir_reply_complete":
                verdicts.append(("complete mkdir reply encode: crate / copy ≤ 4 (time)",
                                 c / cp, c / cp <= 4))
                if ic is not None:
                    verdicts.append(("complete mkdir reply encode: ≤ 450 instructions", ic,
                                     ic <= 450))
            if group == "acl" and p == "8191":
                verdicts.append(("ACL 8191: owned / crate ≥ 3 (time)", ow / c, ow / c >= 3))
                verdicts.append(("ACL 8191: crate / copy ≤ 3 (time)", c / cp, c / cp <= 3))
            if group == "whole_reply" and p == "max":
                verdicts.append(("largest reply (whole): crate / copy ≤ 3 (time)", c / cp,
                                 c / cp <= 3))
        if group == "lock_intent":
            f = median(group, "crate_fill_only", "mkdir_reply_complete")
            if f is not None:
                print(f"| lock_intent | fill only (view decoded) | {ns(f)} | | | | | | | |")
    print()
    print("| payload | elements | crate per element | owned per element | crate instr. per element |")
    print("|---|---:|---:|---:|---:|")
    for group, label in [("acl", "ACL entries"), ("lov_comp", "LOV components")]:
        for p in params(group):
            c, ow = median(group, "crate", p), median(group, "owned", p)
            if c is None or ow is None:
                continue
            n = int(p)
            ic = icount(probe_op[group], p)
            per_i = f"{ic / n:.1f}" if ic is not None else ""
            print(f"| {label} | {n} | {ns(c / n)} | {ns(ow / n)} | {per_i} |")
            if group == "acl" and ic is not None:
                verdicts.append((f"ACL {n}: ≤ 8 instructions per entry", ic / n, ic / n <= 8))
    print()
    print("| target | measured | met |")
    print("|---|---:|---|")
    for name, v, ok in verdicts:
        print(f"| {name} | {v:,.2f} | {'yes' if ok else '**no**'} |")


if __name__ == "__main__":
    main()
