#!/usr/bin/env bash
# Line coverage of the committed corpus, per module of the crate, for fuzz/README.md.
#
# Builds every target with -Cinstrument-coverage (`cargo fuzz coverage`, nightly), runs it over
# its corpus, merges the profiles of all targets, and prints a Markdown table of line coverage
# per source file of the crate (src/), with a subtotal per directory and in all, from
# `llvm-cov export -summary-only`. Needs the LLVM that matches nightly's (Debian's llvm-22:
# apt-get install llvm-22), or LLVM_BIN=/path/to/llvm/bin.
#
#     bash fuzz/coverage.sh [TARGET...]      # default: every target; table on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
[ -x "$llvm/llvm-cov" ] || { echo "coverage.sh: no llvm-cov in $llvm (apt-get install llvm-22)" >&2; exit 1; }
export RUSTUP_TOOLCHAIN=${RUSTUP_TOOLCHAIN:-nightly}
triple=$(rustc -vV | sed -n 's/^host: //p')
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list --fuzz-dir fuzz)
objects=() profiles=()
for t in "${targets[@]}"; do
  corpus=fuzz/corpus/$t
  [ "$t" = decode_message_structured ] && corpus=fuzz/corpus/decode_message
  cargo fuzz coverage --fuzz-dir fuzz --llvm-path "$llvm" "$t" "$corpus" >&2
  objects+=(-object "${CARGO_TARGET_DIR:-target}/$triple/coverage/$triple/release/$t")
  profiles+=("fuzz/coverage/$t/coverage.profdata")
done
merged=fuzz/coverage/all.profdata
"$llvm/llvm-profdata" merge -sparse "${profiles[@]}" -o "$merged"
"$llvm/llvm-cov" export -summary-only -instr-profile "$merged" "${objects[@]:1}" \
  -ignore-filename-regex='(/\.cargo/|/rustc/|/fuzz/|/library/)' >fuzz/coverage/summary.json
python3 - fuzz/coverage/summary.json "${targets[@]}" <<'PY'
import json, os, sys
summary = json.load(open(sys.argv[1]))
root = os.getcwd() + "/"
files = {}
for f in summary["data"][0]["files"]:
    name = f["filename"].replace(root, "")
    if name.startswith("src/"):
        files[name] = f["summary"]["lines"]
def row(name, c, n):
    return f"| {name} | {c:,} | {n:,} | {100 * c / n if n else 100:.1f} % |"
print(f"Targets: {', '.join(sys.argv[2:])}.\n")
print("| source (src/) | lines covered | lines | line coverage |")
print("|---|---:|---:|---:|")
dirs = {}
for name in sorted(files):
    d = os.path.dirname(name)
    dirs.setdefault(d, [0, 0])
    dirs[d][0] += files[name]["covered"]
    dirs[d][1] += files[name]["count"]
for d in sorted(dirs):
    c, n = dirs[d]
    print(row(f"**{d}/**", c, n))
    for name in sorted(files):
        if os.path.dirname(name) == d:
            print(row(name[len(d) + 1:], files[name]["covered"], files[name]["count"]))
c = sum(v["covered"] for v in files.values()); n = sum(v["count"] for v in files.values())
print(row("**all of src/**", c, n))
PY
