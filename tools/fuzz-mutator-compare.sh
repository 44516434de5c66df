#!/usr/bin/env bash
# Measures what the structure-aware mutator buys: runs request_frame_fuzzer and
# response_frame_fuzzer with it and without it (<target>_bytes: libFuzzer's own
# mutations only) for the same time, from the same seed corpus with the same
# libFuzzer seed, and prints final cov/ft of each.
# Usage: tools/fuzz-mutator-compare.sh [seconds-per-run] [target...]   (default 120)
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-120}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(request_frame_fuzzer response_frame_fuzzer)
stamp=$(date +%Y%m%d-%H%M%S)
export KWIRE_FUZZ_ARGS="${KWIRE_FUZZ_ARGS:--seed=1}"
KWIRE_FUZZ_WORK="build/fuzz-compare/$stamp/structured" tools/fuzz-campaign.sh "$secs" "${targets[@]}" |
  tail -n +1 | grep -E '^(target|[a-z_]+_fuzzer)' || true
KWIRE_FUZZ_WORK="build/fuzz-compare/$stamp/bytes" KWIRE_FUZZ_VARIANT=_bytes \
  tools/fuzz-campaign.sh "$secs" "${targets[@]}" | grep -E '^[a-z_]+_fuzzer_bytes' || true
