#!/usr/bin/env python3
"""A/B of two builds of the codec: paired times and exact instruction counts, case by case.

Builds `benches/probe.rs` from the working tree and from a git revision (in a worktree under
target/paired/, kept between runs), then for each case (`OP PARAM` of the probe, as
`benches/instructions.py` lists them):
- **time**: runs the two probes in turn, ROUNDS times each, ITERS operations a run, and keeps
  each side's fastest run. Alternating the builds and keeping minima is what makes a 5 %
  difference visible on a shared two-core machine, where one criterion run after another moves
  by more than that. A run of 1 iteration is timed too and subtracted: process start and input
  building cancel out.
- **instructions** (with --instructions, needs valgrind): (I(1 + N) - I(1)) / N under
  callgrind, for each build, as instructions.py counts them.

Usage:
    python3 benches/paired.py --base main [--rounds 5] [--iters 20000000] \
        [--instructions] decode:mkdir_reply_complete decode:mkdir_request ...
    python3 benches/paired.py --base-bin OLD_PROBE --head-bin NEW_PROBE decode:mkdir_request

A case is OP:PARAM; with no case given, every decode the probe lists (every
message of testdata/) is compared.

With --floors there is no base build: each case is timed against its own baselines in the
working tree's probe (OP_copy, the copy floor, and OP_owned, the owned decoder, where the probe
has them), the three in turn, each keeping its fastest run. These ratios move less than
criterion's medians only when the machine's noise comes in short bursts; on the AMD EPYC of
2026-12-02 they moved as much (the complete reply 7.2x, then 4.5x its copy).

    python3 benches/paired.py --floors [--rounds 5] [--iters 20000000] [cases]
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from instructions import ROOT, build_probe, iters_for, per_op  # noqa: E402


def probe_at(rev):
    """The probe built from `rev`, in a worktree of its own (target/paired/<commit>)."""
    sha = subprocess.run(["git", "rev-parse", "--verify", rev + "^{commit}"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout.strip()
    tree = os.path.join(ROOT, "target", "paired", sha[:12])
    if not os.path.isdir(tree):
        # A worktree that `cargo clean` removed is still registered: forget it first.
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=True)
        res = subprocess.run(["git", "worktree", "add", "--detach", tree, sha], cwd=ROOT,
                             capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"paired.py: git worktree add {tree} failed:\n{res.stderr}")
    # Its own target directory, so the two builds never overwrite each other.
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(tree, "target"))
    return build_probe(cwd=tree, env=env)


def run_ns(probe, op, param, iters):
    start = time.perf_counter_ns()
    subprocess.run([probe, op, param, str(iters)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter_ns() - start


def interleaved(runs, param, iters, rounds):
    """ns per operation of each (probe, op) of `runs`, timed in turn: the fastest of `rounds`
    runs, less the fastest 1-iteration run (process start and input building)."""
    best = [None] * len(runs)
    start = [None] * len(runs)
    for r in range(rounds):
        # Rotate which one goes first, so that none always runs on a warmer machine.
        for k in range(len(runs)):
            i = (k + r) % len(runs)
            probe, op = runs[i]
            t, s = run_ns(probe, op, param, iters), run_ns(probe, op, param, 1)
            best[i] = t if best[i] is None else min(best[i], t)
            start[i] = s if start[i] is None else min(start[i], s)
    return [(b - s) / (iters - 1) for b, s in zip(best, start)]


def listing(probe):
    """The (op, param) cases the probe has."""
    out = subprocess.run([probe, "--list"], check=True, capture_output=True, text=True).stdout
    return {tuple(line.split()) for line in out.splitlines()}


def floors(head, cases, iters, rounds):
    print("| case | crate ns | copy ns | owned ns | crate / copy | owned / crate |")
    print("|---|---:|---:|---:|---:|---:|")
    known = listing(head)
    for op, param in cases:
        # A baseline of the operation, or of its family (`encode_validated` has `encode_copy`).
        base = {b: next((o for o in (f"{op}_{b}", f"{op.split('_')[0]}_{b}")
                         if (o, param) in known), None) for b in ("copy", "owned")}
        runs = [(head, o) for o in (op, base["copy"], base["owned"]) if o]
        t = dict(zip((o for _, o in runs), interleaved(runs, param, iters, rounds)))
        crate, copy, owned = t[op], t.get(base["copy"]), t.get(base["owned"])
        cells = [f"{crate:.2f}", f"{copy:.2f}" if copy else "", f"{owned:.2f}" if owned else "",
                 f"{crate / copy:.2f}×" if copy else "", f"{owned / crate:.2f}×" if owned else ""]
        print(f"| {op} {param} | " + " | ".join(cells) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="OP:PARAM (default: every decode)")
    ap.add_argument("--base", help="git revision to compare the working tree against")
    ap.add_argument("--base-bin", help="a probe binary to use as the base instead")
    ap.add_argument("--head-bin", help="a probe binary to use as the head instead")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each build (5)")
    ap.add_argument("--iters", type=int, default=20_000_000, help="operations a run (20 M)")
    ap.add_argument("--instructions", action="store_true", help="also count under callgrind")
    ap.add_argument("--floors", action="store_true",
                    help="no base: time each case against its copy floor and owned decoder")
    args = ap.parse_args()
    if args.rounds < 1 or args.iters < 2:
        sys.exit("paired.py: --rounds must be at least 1 and --iters at least 2")
    if args.floors and (args.base or args.base_bin or args.instructions):
        sys.exit("paired.py: --floors times one build; it takes no --base, --base-bin or "
                 "--instructions (instructions.py counts one build)")
    if not args.floors and not (args.base or args.base_bin):
        sys.exit("paired.py: give --base REV or --base-bin PROBE (or --floors)")
    head = args.head_bin or build_probe()
    known = listing(head)
    cases = [tuple(c.split(":", 1)) for c in args.cases]
    cases = cases or sorted(c for c in known if c[0] == "decode")
    for c in cases:
        if c not in known:
            sys.exit(f"paired.py: the probe has no case {':'.join(c)!r} (OP:PARAM, as "
                     f"`probe --list` prints them with a space)")
    if args.floors:
        floors(head, cases, args.iters, args.rounds)
        return
    base = args.base_bin or probe_at(args.base)

    cols = "case", "base ns", "head ns", "change"
    if args.instructions:
        cols += "base instr.", "head instr.", "change"
    print("| " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * (len(cols) - 1))
    for op, param in cases:
        b, h = interleaved([(base, op), (head, op)], param, args.iters, args.rounds)
        row = [f"{op} {param}", f"{b:.2f}", f"{h:.2f}", f"{(h - b) / b * 100:+.1f} %"]
        if args.instructions:
            n = iters_for(param, 200)
            ib, ih = per_op(base, op, param, n), per_op(head, op, param, n)
            row += [f"{ib:,.0f}", f"{ih:,.0f}", f"{ih - ib:+,.0f}"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
