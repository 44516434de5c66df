#!/bin/bash -eu
# Writes <out-dir>/<target>_seed_corpus.zip for one fuzz target: every file of
# corpus/<target>/ and corpus/regressions/ (README files excepted) that is no longer
# than the target's max_len (fuzz/<target>.options). Longer files are skipped and
# listed on stderr: libFuzzer would only ever read their first max_len bytes, which is
# a different input (they stay replayed whole by ctest and oss-fuzz run_tests.sh).
# Called by fuzz/oss-fuzz-build.sh; checked by tools/oss-fuzz-sim.sh.
#
# Usage: fuzz/oss-fuzz-seed-corpus.sh [-h|--help] TARGET OUT_DIR [KWIRE_SRC]
#   KWIRE_SRC  kwire checkout (default: the one holding this script)
set -o pipefail

usage() {
  echo "Usage: fuzz/oss-fuzz-seed-corpus.sh [-h|--help] TARGET OUT_DIR [KWIRE_SRC]"
  echo "Zips corpus/TARGET/ + corpus/regressions/ into OUT_DIR/TARGET_seed_corpus.zip,"
  echo "skipping (and listing) seeds longer than max_len of fuzz/TARGET.options."
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
esac
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage >&2; exit 2; fi
target="$1"
out_dir="$2"
kwire="${3:-$(cd "$(dirname "$0")/.." && pwd)}"
[ -d "$kwire/corpus" ] || { echo "oss-fuzz-seed-corpus: no $kwire/corpus" >&2; exit 2; }
[ -d "$out_dir" ] || { echo "oss-fuzz-seed-corpus: no directory $out_dir" >&2; exit 2; }
command -v zip >/dev/null || { echo "oss-fuzz-seed-corpus: zip not installed" >&2; exit 2; }

max_len=$(sed -n 's/^max_len *= *\([0-9]*\).*/\1/p' "$kwire/fuzz/$target.options" 2>/dev/null | head -1 || true)
zip_path="$(cd "$out_dir" && pwd)/${target}_seed_corpus.zip"
rm -f "$zip_path"
kept=0
skipped=0
list=$(mktemp)
trap 'rm -f "$list"' EXIT
while IFS= read -r -d '' f; do
  size=$(stat -c %s "$kwire/corpus/$f")
  if [ -n "$max_len" ] && [ "$size" -gt "$max_len" ]; then
    echo "oss-fuzz-seed-corpus: $target: skipping corpus/$f ($size bytes > max_len $max_len)" >&2
    skipped=$((skipped + 1))
    continue
  fi
  printf '%s\n' "$f" >>"$list"
  kept=$((kept + 1))
done < <(cd "$kwire/corpus" && find "$target" regressions -type f ! -name '*.md' -print0 2>/dev/null | sort -z)
if [ "$kept" -gt 0 ]; then
  (cd "$kwire/corpus" && zip -q -j -@ "$zip_path" <"$list")
fi
echo "oss-fuzz-seed-corpus: $target: $kept seeds in $(basename "$zip_path"), $skipped skipped (max_len ${max_len:-none})"
