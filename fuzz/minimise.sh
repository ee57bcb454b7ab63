#!/usr/bin/env bash
# Merges a campaign's working corpora back into the committed corpus, minimised: for each target
# T the named files of fuzz/corpus/T (seeds from testdata/, regress_* findings) are kept as they
# are, and libFuzzer's -merge=1 adds, from the committed SHA-1 units and the campaign's units,
# only those that reach coverage the kept files do not. The structured target shares
# decode_message's corpus, so its units merge there.
#
#     bash fuzz/minimise.sh OUT CAMPAIGN_DIR     # OUT: build.sh's binaries; CAMPAIGN_DIR: campaign.py --dir
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: minimise.sh OUT CAMPAIGN_DIR}
campaign=${2:?usage: minimise.sh OUT CAMPAIGN_DIR}
for bin in "$out"/*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  t=$(basename "$bin")
  [ "$t" = decode_message_structured ] && continue
  committed=fuzz/corpus/$t
  new=$(mktemp -d)
  # Named files are kept whatever coverage they add: the tests and the README name them.
  find "$committed" -maxdepth 1 -type f -regextype posix-extended ! -regex '.*/[0-9a-f]{40}' -exec cp {} "$new"/ \;
  kept=$(find "$new" -type f | wc -l)
  sources=("$committed")
  [ -d "$campaign/corpus/$t" ] && sources+=("$campaign/corpus/$t")
  [ "$t" = decode_message ] && [ -d "$campaign/corpus/decode_message_structured" ] \
    && sources+=("$campaign/corpus/decode_message_structured")
  max_len=$(sed -n 's/^max_len *= *//p' "fuzz/options/$t.options")
  "$bin" -merge=1 "-max_len=${max_len:-70000}" "$new" "${sources[@]}" >"$new.log" 2>&1 \
    || { tail -20 "$new.log"; echo "minimise.sh: merge of $t failed"; exit 1; }
  before=$(find "$committed" -type f | wc -l)
  rm -rf "$committed" && mkdir -p "$committed" && cp "$new"/* "$committed"/
  echo "$t: $before files before, $(find "$committed" -type f | wc -l) after ($kept named, the rest units that add coverage)"
  rm -rf "$new" "$new.log"
done
