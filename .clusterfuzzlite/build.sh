#!/bin/bash -eu
# Builds every fuzz target of fuzz/ for ClusterFuzzLite and OSS-Fuzz (fuzz/oss-fuzz/ runs this
# same script), and for .ci/run, which calls it without Docker.
#
# In:  $SRC/lustre-dne-intent  the checkout
#      $OUT                    where the binaries and their files go
#      $WORK                   scratch space
#      $SANITIZER              address (the default), memory, thread, leak, none, or coverage
#                              (OSS-Fuzz's coverage build: its cargo wrapper adds the flags)
# Out: for each target T: $OUT/T, $OUT/T_seed_corpus.zip, $OUT/T.options and, where the target
#      has one, $OUT/T.dict.
# Also when run as `bash build.sh`, which ignores the options on the #! line: a failed cargo
# build must stop here, not copy the stale binaries of an earlier build.
set -euo pipefail
cd "$SRC/lustre-dne-intent"

case "${SANITIZER:-address}" in
  address|memory|thread|leak|none) sanitizer=${SANITIZER:-address} ;;
  *) sanitizer=none ;;
esac

# -O alone drops debug assertions, and with them the overflow checks the local runs had:
# --debug-assertions keeps them in the optimised build.
cargo fuzz build --fuzz-dir fuzz -O --debug-assertions --sanitizer "$sanitizer"

triple=$(rustc -vV | sed -n 's/^host: //p')
bin_dir="${CARGO_TARGET_DIR:-fuzz/target}/$triple/release"

# The seed corpus of a target: its own committed corpus, or the one of the harness it shares.
seeds_of() {
  case "$1" in
    decode_message_structured) echo fuzz/corpus/decode_message ;;
    *) echo "fuzz/corpus/$1" ;;
  esac
}

zip_dir() { # zip_dir DIR ZIP: the files of DIR, flat.
  if command -v zip >/dev/null 2>&1; then
    (cd "$1" && zip -q -r -j "$2" .)
  else
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isfile(path):
            z.write(path, name)
PY
  fi
}

for t in $(cargo fuzz list --fuzz-dir fuzz); do
  cp "$bin_dir/$t" "$OUT/"
  seeds=$(seeds_of "$t")
  rm -f "$OUT/${t}_seed_corpus.zip"
  zip_dir "$PWD/$seeds" "$OUT/${t}_seed_corpus.zip"
  cp "fuzz/options/$t.options" "$OUT/"
  dict=$(sed -n 's/^dict *= *//p' "fuzz/options/$t.options")
  if [ -n "$dict" ]; then
    cp "fuzz/dict/$dict" "$OUT/"
  fi
  echo "built $t: $(find "$seeds" -type f | wc -l) seeds from $seeds${dict:+, dictionary $dict}"
done
