#!/usr/bin/env bash
# Regenerates the generated seeds of corpus/ (files named min-*, seed-*, rand-*, gen-*, rec-*;
# see fuzz/seedgen.cc) from conformance/vectors and the codec, in the g++ replay tree
# build/fuzzreplay. Hand-added seeds and corpus/regressions/ are left alone. Run after
# a definition change and commit the result.
# Usage: tools/fuzz-seeds.sh [-h|--help]
set -euo pipefail
case "${1:-}" in
  -h|--help)
    echo "Usage: tools/fuzz-seeds.sh [-h|--help]"
    echo "Regenerates the generated seeds of corpus/ (min-*, seed-*, rand-*, gen-*, rec-*) with"
    echo "kwire_fuzz_seedgen, built in build/fuzzreplay; commit the result."
    exit 0 ;;
  "") ;;
  *) echo "fuzz-seeds: unexpected argument '$1' (tools/fuzz-seeds.sh --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
[ -f build/fuzzreplay/build.ninja ] || cmake --preset test -B build/fuzzreplay >/dev/null
nice cmake --build build/fuzzreplay -j"${KWIRE_FUZZ_JOBS:-2}" --target kwire_fuzz_seedgen >/dev/null
./build/fuzzreplay/fuzz/kwire_fuzz_seedgen corpus
du -s --apparent-size --block-size=1K corpus/* | sed 's/^/  KiB /'
