#!/usr/bin/env bash
# Measures what the structure-aware mutator buys: runs the frame targets (request and
# response, round trip and explain) with it and without it (<target>_bytes: libFuzzer's own
# mutations only) for the same time, from the same seed corpus with the same
# libFuzzer seed, and prints final cov/ft of each.
# Usage: tools/fuzz-mutator-compare.sh [-h|--help] [seconds-per-run] [target...]
#   seconds  positive integer, default 120; targets: any of request_frame_fuzzer,
#   response_frame_fuzzer, request_explain_fuzzer, response_explain_fuzzer (the targets
#   with a _bytes variant), default the first two.
# Work folders: build/fuzz-compare/<timestamp>/{structured,bytes}.
set -euo pipefail

usage() {
  echo "Usage: tools/fuzz-mutator-compare.sh [-h|--help] [seconds-per-run] [target...]"
  echo "Fuzzes each frame target with and without the structure-aware mutator for the same"
  echo "time (positive integer, default 120 s) and prints the final cov/ft of both."
  echo "Targets: request_frame_fuzzer response_frame_fuzzer request_explain_fuzzer"
  echo "response_explain_fuzzer (default: the first two)."
}
usage_error() { echo "fuzz-mutator-compare: $1" >&2; usage >&2; exit 2; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -*) usage_error "unknown option '$1'" ;;
esac
secs=120
if [ $# -gt 0 ] && [[ "$1" != *_fuzzer ]]; then
  if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$((10#$1))" -eq 0 ]; then
    usage_error "seconds must be a positive integer, got '$1'"
  fi
  secs=$((10#$1))
  shift
fi
for t in "$@"; do
  case "$t" in
    request_frame_fuzzer|response_frame_fuzzer|request_explain_fuzzer|response_explain_fuzzer) ;;
    *) usage_error "no _bytes variant for '$t' (request_frame_fuzzer, response_frame_fuzzer, request_explain_fuzzer, response_explain_fuzzer)" ;;
  esac
done
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(request_frame_fuzzer response_frame_fuzzer)
stamp=$(date +%Y%m%d-%H%M%S)
export KWIRE_FUZZ_ARGS="${KWIRE_FUZZ_ARGS:--seed=1}"
KWIRE_FUZZ_WORK="build/fuzz-compare/$stamp/structured" tools/fuzz-campaign.sh "$secs" "${targets[@]}" |
  tail -n +1 | grep -E '^(target|[a-z_]+_fuzzer)' || true
KWIRE_FUZZ_WORK="build/fuzz-compare/$stamp/bytes" KWIRE_FUZZ_VARIANT=_bytes \
  tools/fuzz-campaign.sh "$secs" "${targets[@]}" | grep -E '^[a-z_]+_fuzzer_bytes' || true
