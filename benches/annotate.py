#!/usr/bin/env python3
"""Where one operation's instructions go: exact counts per function and per machine instruction.

`benches/instructions.py` says how many instructions an operation of the probe takes; this says
which ones. It builds the probe with line tables (`CARGO_PROFILE_BENCH_DEBUG=line-tables-only`,
in target/annotate/, so the usual build is left alone; line tables do not change the code: the
counts are those of instructions.py), runs one case under
`valgrind --tool=callgrind --dump-instr=yes` with 1 and with 1 + N iterations, and divides the
difference of each instruction's count by N, as instructions.py does for the total.

It prints, for one operation:
- the functions it runs, with their own instructions (inlined code counts in its caller);
- the instructions by kind, read off the opcodes (a heuristic: a compare or test followed by a
  conditional jump is one *check*; moves to and from the stack are *stack traffic*, spills and
  the view's own fields alike; and so on), which separates what the rules need from what the
  compiled code spends around them;
- with --listing FUNC, that function's disassembly (objdump) with each instruction's count.

Usage: python3 benches/annotate.py decode mkdir_reply_complete [--iters 1000] [--listing run]
Needs valgrind and objdump (binutils).
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from instructions import ROOT, build_probe  # noqa: E402

CHECK_OPS = ("cmp", "test", "bt")


def counts_of(path, binary):
    """Self instructions at each address of `binary`, from a callgrind file written with
    --dump-instr=yes --compress-pos=no --compress-strings=no (a call's inclusive cost, the line
    after `calls=`, is the callee's and is skipped)."""
    counts = collections.Counter()
    ours, after_calls, last = False, False, 0
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ours = os.path.realpath(line[3:].strip()) == os.path.realpath(binary)
                continue
            if line.startswith("calls="):
                after_calls = True
                continue
            m = re.match(r"^(0x[0-9a-f]+|[+-]\d+|\*)\s+\S+\s+(\d+)", line)
            if not m:
                continue
            a = m.group(1)
            last = int(a, 16) if a.startswith("0x") else last if a == "*" else last + int(a)
            if after_calls:
                after_calls = False
            elif ours:
                counts[last] += int(m.group(2))
    return counts


def callgrind(probe, op, param, iters, out):
    res = subprocess.run(
        ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
         "--compress-strings=no", f"--callgrind-out-file={out}", probe, op, param, str(iters)],
        cwd=ROOT, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"annotate.py: probe {op} {param} failed under callgrind:\n{res.stderr}")


def disassembly(binary):
    """[(function, [(address, opcode, operands, text)])] in address order, names demangled."""
    dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary],
                          check=True, capture_output=True, text=True).stdout
    funcs = []
    for line in dump.splitlines():
        head = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if head:
            funcs.append((head.group(1), []))
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and funcs:
            funcs[-1][1].append((int(m.group(1), 16), m.group(2), m.group(3), line.strip()))
    return funcs


CHECK = "check: a compare or test and its conditional jump"


def kind_of(op, args, prev_op, next_op):
    """The kind of one instruction, by its opcode and operands, and its neighbours' opcodes (a
    conditional jump after a compare belongs to the check)."""
    conditional = op.startswith("j") and op != "jmp"
    if (op.startswith(CHECK_OPS) and next_op.startswith("j") and next_op != "jmp") or (
            conditional and prev_op.startswith(CHECK_OPS)):
        return CHECK
    if op.startswith("j"):
        return "conditional jump after arithmetic" if op != "jmp" else "jmp"
    if op in ("push", "pop", "ret", "call") or (op in ("sub", "add") and args.endswith("%rsp")):
        return "call, prologue, epilogue"
    if op.startswith("mov") and "(%rsp)" in args:
        to_stack = "(%rsp)" in args.split(",")[-1]
        return "stack traffic: store" if to_stack else "stack traffic: load"
    if op.startswith("mov") and "(" in args.split(",")[-1]:
        return "store through a pointer (the returned value)"
    if op.startswith("mov") and "(" in args:
        return "load from memory off the stack (the input, mostly)"
    if op.startswith(("cmov", "set")):
        return "conditional move or set (bounds of a slice, flags)"
    if op.startswith(("mov", "lea", "xchg")):
        return "register move or address arithmetic"
    return "arithmetic and logic (framing sums, masks, SIMD)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", help="an operation of the probe (decode, acl, lov, ...)")
    ap.add_argument("param", help="its parameter (a testdata vector, an entry count, ...)")
    ap.add_argument("--iters", type=int, default=1000, help="N, the extra iterations (1000)")
    ap.add_argument("--listing", action="append", default=[],
                    help="print the disassembly of the functions whose name contains this")
    args = ap.parse_args()
    env = dict(os.environ, CARGO_PROFILE_BENCH_DEBUG="line-tables-only",
               CARGO_TARGET_DIR=os.path.join(ROOT, "target", "annotate"))
    probe = build_probe(env=env)
    with tempfile.TemporaryDirectory() as tmp:
        one, more = os.path.join(tmp, "one"), os.path.join(tmp, "more")
        callgrind(probe, args.op, args.param, 1, one)
        callgrind(probe, args.op, args.param, 1 + args.iters, more)
        c1, cn = counts_of(one, probe), counts_of(more, probe)
    per = {a: (cn[a] - c1[a]) / args.iters for a in cn}
    by_func, by_kind, listings = [], collections.Counter(), []
    for name, insns in disassembly(probe):
        total = sum(per.get(a, 0) for a, *_ in insns)
        if total < 0.5:
            continue
        by_func.append((total, name))
        for i, (a, op, operands, text) in enumerate(insns):
            n = per.get(a, 0)
            if n:
                prev_op = insns[i - 1][1] if i > 0 else ""
                next_op = insns[i + 1][1] if i + 1 < len(insns) else ""
                by_kind[kind_of(op, operands, prev_op, next_op)] += n
        if any(want in name for want in args.listing):
            listings.append(f"\n{name}: {total:.1f}")
            listings += [f"{per.get(a, 0):8.2f}  {text}" for a, *_, text in insns
                         if per.get(a, 0) > 0.004]
    whole = sum(t for t, _ in by_func)
    print(f"probe {args.op} {args.param}: {whole:.1f} instructions an operation "
          f"(the probe's own loop included)\n\nby function (own instructions, inlined code in "
          f"its caller):")
    for total, name in sorted(by_func, reverse=True):
        print(f"{total:8.1f}  {name}")
    print("\nby kind (read off the opcodes):")
    for kind, n in by_kind.most_common():
        print(f"{n:8.1f}  {kind}")
    print("\n".join(listings))


if __name__ == "__main__":
    main()
