#!/usr/bin/env python3
"""Instruction counts of the codec under callgrind: exact, and independent of machine load.

Builds the `probe` bench (release profile), then for every case it lists runs it twice under
`valgrind --tool=callgrind`, with 1 and with 1 + N iterations, and reports
(I(1 + N) - I(1)) / N: the instructions of one operation, with process start, file reading and
input building cancelled out. Beside each crate figure it prints the crate's own part of it
(below), the copy floor and the owned decoder of the same input, and their ratios.

The own part leaves out the instructions run inside glibc's memcpy, memmove, memset, memcmp and
memchr: glibc picks their variant for the CPU when the program loads (AVX2, EVEX, ERMS), so
their counts differ between machines while the crate's compiled code does not. The calls to
them (arguments, call, PLT jump) stay counted. The budget holds the own part, so an encoder,
which copies its results with memcpy, is held to the same figure on every x86-64 CPU. To see
another CPU's variants on this one: GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-AVX_Fast_Unaligned_Load
(the totals move, the own parts do not; docs/performance.md, "Noise").

Usage: python3 benches/instructions.py [--iters N] [--json FILE] [--only SUBSTRING]
       python3 benches/instructions.py --check benches/budget.json [--slack 0.03] [--update]
Needs valgrind (apt-get install valgrind).

With --check, only the cases of the budget file run, and the script fails when the own part of
one of them takes more than its budget plus the slack (3 % by default): an exact count, so CI can
hold the decoders and encoders to the figures of docs/performance.md without timing anything.
With --update as well, the file's figures are rewritten to the own counts (rounded up): review
the diff, and say why in the commit when one rises.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_probe(cwd=ROOT, env=None):
    """Builds the probe of the tree at `cwd` and returns its path."""
    out = subprocess.run(
        ["cargo", "bench", "--bench", "probe", "--no-run", "--message-format=json"],
        cwd=cwd, env=env, check=True, capture_output=True, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "probe":
            if msg.get("executable"):
                return msg["executable"]
    sys.exit("instructions.py: cargo did not report the probe executable")


# glibc's string functions the compiled code calls (memcpy for a slice copy, memset for a fill,
# bcmp/memcmp for a slice comparison), in every variant glibc picks for the CPU at load time
# (`__memmove_avx_unaligned_erms`, `__memset_evex_unaligned_erms`, ...): their counts depend on
# the CPU, not on the crate. All are leaves, so their own count is their whole cost.
LIBC_STRING_FN = re.compile(r"^_*(mem(cpy|move|set|cmp|chr|rchr)|bcmp|rawmemchr)(_|@|$)")


def libc_string_cost(path):
    """Instructions a callgrind file (written with --compress-strings=no --compress-pos=no)
    counts in glibc's CPU-dependent string functions (`LIBC_STRING_FN` in a libc object). A
    cost line right after `calls=` is a call's inclusive cost, counted in the caller's
    function: skipped, so each function is counted once, by its own lines."""
    total, after_calls, ob, fn = 0, False, "", ""
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif line.startswith("calls="):
                after_calls = True
                continue
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False
                elif "/libc.so" in ob and LIBC_STRING_FN.match(fn):
                    total += int(line.split()[1])
    return total


def collected(probe, op, param, iters):
    """(all, own): the instructions callgrind collected for one run of the probe, and of them
    those outside glibc's string functions (`libc_string_cost`)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        res = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             "--compress-strings=no", "--compress-pos=no", probe, op, param, str(iters)],
            cwd=ROOT, capture_output=True, text=True,
        )
        if res.returncode != 0:
            sys.exit(f"instructions.py: probe {op} {param} failed:\n{res.stderr}")
        m = re.search(r"Collected\s*:\s*(\d+)", res.stderr)
        if not m:
            sys.exit(f"instructions.py: no 'Collected' line from callgrind:\n{res.stderr}")
        total = int(m.group(1))
        return total, total - libc_string_cost(out)


def per_op_both(probe, op, param, n):
    """(all, own) instructions of one operation: the difference of a run of 1 + n and a run of 1
    iteration, over n. `own` leaves out glibc's string functions and so is the same on every
    x86-64 CPU; the call to them (its arguments, the call and the PLT jump) stays counted."""
    (a1, o1), (an, on) = (collected(probe, op, param, 1),
                          collected(probe, op, param, 1 + n))
    return (an - a1) / n, (on - o1) / n


def per_op(probe, op, param, n):
    """All instructions of one operation, glibc's string functions included."""
    return per_op_both(probe, op, param, n)[0]


def iters_for(param, iters):
    """Large inputs (an 8191-entry ACL, the largest reply) are slow under valgrind: fewer runs."""
    return iters if param not in ("8191", "max") else max(iters // 20, 5)


def check_budget(probe, path, iters, slack, update=False):
    """Counts every case of the budget file; 0 when each is within its budget plus `slack`.
    With `update`, writes the counts back as the new budget instead of judging them."""
    with open(path) as f:
        doc = json.load(f)
    budget = doc["budget"]
    counted = {}
    over = []
    known = {tuple(line.split()) for line in subprocess.run(
        [probe, "--list"], check=True, capture_output=True, text=True).stdout.splitlines()}
    for case, allowed in budget.items():
        if tuple(case.split()) not in known or not isinstance(allowed, int):
            sys.exit(f"instructions.py: {path}: {case!r}: {allowed!r} is not a budget of a "
                     f"probe case (an 'OP PARAM' that `probe --list` prints, and an integer)")
    print("| case | budget | counted | change |")
    print("|---|---:|---:|---:|")
    for case, allowed in budget.items():
        op, param = case.split()
        n = per_op_both(probe, op, param, iters_for(param, iters))[1]
        counted[case] = math.ceil(n)
        print(f"| {case} | {allowed} | {n:.0f} | {(n - allowed) / allowed * 100:+.1f} % |")
        if n > allowed * (1 + slack):
            over.append(case)
    if update:
        doc["budget"] = counted
        with open(path, "w") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
        print(f"wrote the counts to {path}")
        return 0
    if over:
        print(f"instructions.py: over budget (+{slack:.0%}): {', '.join(over)}; if the cost is "
              f"meant, raise the figure in {path} and say why in the commit", file=sys.stderr)
        return 1
    print(f"every case within its budget (+{slack:.0%} slack)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=200, help="N, the extra iterations (200)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--own-json", help="also write the own-code figures (the budget's) here")
    ap.add_argument("--only", default="", help="only cases whose 'op param' contains this")
    ap.add_argument("--check", help="fail when a case of this budget file exceeds its budget")
    ap.add_argument("--slack", type=float, default=0.03, help="allowed excess with --check (0.03)")
    ap.add_argument("--update", action="store_true", help="with --check: write the counts back")
    args = ap.parse_args()
    if args.update and not args.check:
        sys.exit("instructions.py: --update rewrites a budget file: give it with --check FILE")
    probe = build_probe()
    if args.check:
        sys.exit(check_budget(probe, args.check, args.iters, args.slack, args.update))
    listing = subprocess.run([probe, "--list"], check=True, capture_output=True, text=True)
    cases = [tuple(l.split()) for l in listing.stdout.splitlines() if args.only in l]
    counts, own = {}, {}
    for op, param in cases:
        counts[(op, param)], own[(op, param)] = per_op_both(
            probe, op, param, iters_for(param, args.iters))
        print(f"  {op:13} {param:26} {counts[(op, param)]:12.1f} {own[(op, param)]:12.1f} own",
              file=sys.stderr)
    groups, own_of = {}, {}
    for (op, param), v in counts.items():
        # `acl_copy` and `acl_owned` are baselines of `acl`; `encode_validated` and `lov_value`
        # are operations of their own, compared with the copy floor of their input.
        base, _, variant = op.rpartition("_")
        if variant not in ("copy", "owned"):
            base, variant = op, "crate"
        groups.setdefault((base, param), {})[variant] = v
        if variant == "crate":
            own_of[(base, param)] = own[(op, param)]
    print("| operation | input | crate | crate, own code | copy floor | owned | crate / copy "
          "| owned / crate |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (base, param), g in groups.items():
        crate, copy, owned = g.get("crate"), g.get("copy"), g.get("owned")
        if copy is None:
            copy = groups.get((base.split("_")[0], param), {}).get("copy")
        mine = own_of.get((base, param))
        cells = [f"{crate:.0f}" if crate is not None else "",
                 f"{mine:.0f}" if mine is not None else "",
                 f"{copy:.0f}" if copy is not None else "",
                 f"{owned:.0f}" if owned is not None else "",
                 f"{crate / copy:.1f}×" if crate and copy else "",
                 f"{owned / crate:.1f}×" if crate and owned else ""]
        print(f"| {base} | {param} | " + " | ".join(cells) + " |")
    for n in ("32", "1024", "8191"):
        if ("acl", n) in counts:
            print(f"acl per entry at {n}: {counts[('acl', n)] / int(n):.1f} instructions")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{op} {param}": v for (op, param), v in counts.items()}, f, indent=1)
    if args.own_json:
        with open(args.own_json, "w") as f:
            json.dump({f"{op} {param}": v for (op, param), v in own.items()}, f, indent=1)


if __name__ == "__main__":
    main()
