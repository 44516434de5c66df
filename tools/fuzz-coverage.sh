#!/usr/bin/env bash
# Line coverage of codec/ reached by the fuzz corpus: builds the fuzz targets with
# clang-14 source-based coverage (-fprofile-instr-generate -fcoverage-mapping, no
# sanitizers, replay main), replays corpus/ through every target, merges the profiles
# with llvm-profdata-14 and reports with llvm-cov-14:
#   build/fuzz-coverage/report.txt   per-file summary of codec/ (the figure in README)
#   build/fuzz-coverage/html/        annotated sources
#
# Usage: tools/fuzz-coverage.sh [extra-dir...]
#   extra-dir  more inputs to replay, e.g. a campaign's grown corpus
#              (build/fuzz-campaign/<stamp>/<target>/corpus): a directory whose path
#              names a target is replayed through that target only, others through all.
# Environment: KWIRE_FUZZ_JOBS (build parallelism, default 2).
set -euo pipefail

usage() {
  echo "Usage: tools/fuzz-coverage.sh [-h|--help] [extra-dir...]"
  echo "Builds the fuzz targets with clang-14 source-based coverage, replays corpus/ (and"
  echo "each extra directory) and reports codec/ line coverage in build/fuzz-coverage/."
  echo "An extra directory whose path names a target is replayed through that target only."
}
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz-coverage: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
  esac
  [ -d "$arg" ] || { echo "fuzz-coverage: not a directory: '$arg'" >&2; usage >&2; exit 2; }
done
extra_dirs=()
for arg in "$@"; do extra_dirs+=("$(cd "$arg" && pwd)"); done
cd "$(dirname "$0")/.."
root=$(pwd)
dir=build/fuzz-coverage
jobs="${KWIRE_FUZZ_JOBS:-2}"
targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' fuzz/CMakeLists.txt | grep -o '[a-z_]*_fuzzer')
flags="-O1 -g -fprofile-instr-generate -fcoverage-mapping"

cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE= \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DKWIRE_TESTS=OFF -DKWIRE_BENCH=OFF -DKWIRE_FUZZ=OFF -DKWIRE_SANITIZE=OFF >/dev/null
# shellcheck disable=SC2086
nice cmake --build "$dir" -j"$jobs" --target $targets >"$dir/build.log" 2>&1 ||
  { tail -30 "$dir/build.log"; echo "coverage build failed"; exit 2; }

rm -rf "$dir/profiles"
mkdir -p "$dir/profiles"
objects=()
for t in $targets; do
  inputs=("$root/corpus")
  for extra in ${extra_dirs[@]+"${extra_dirs[@]}"}; do
    case "$extra" in
      *_fuzzer*) [[ "$extra" == *"$t"* ]] && inputs+=("$extra") ;;
      *) inputs+=("$extra") ;;
    esac
  done
  LLVM_PROFILE_FILE="$dir/profiles/$t-%p.profraw" "$dir/fuzz/$t" "${inputs[@]}" >/dev/null
  objects+=(-object "$dir/fuzz/$t")
done
llvm-profdata-14 merge -sparse "$dir"/profiles/*.profraw -o "$dir/merged.profdata"

# Reports run inside the build tree: ccache (CCACHE_BASEDIR) records source paths
# relative to it. codec/ sources only (no tests); the generated message headers are
# reported separately.
cd "$dir"
objs=()
for t in $targets; do objs+=(-object "fuzz/$t"); done
ignore='(gen/codec/generated/|/usr/|_test\.cc|_test_util\.h|test_util\.h|fuzz/|records_throughput\.cc)'
llvm-cov-14 report "${objs[@]:1}" -instr-profile merged.profdata \
  -ignore-filename-regex="$ignore" 2>/dev/null >report.txt
llvm-cov-14 report "${objs[@]:1}" -instr-profile merged.profdata \
  -ignore-filename-regex='(/usr/|fuzz/|\.\./\.\./)' 2>/dev/null >report-generated.txt || true
rm -rf html
llvm-cov-14 show "${objs[@]:1}" -instr-profile merged.profdata -format=html \
  -ignore-filename-regex="$ignore" -output-dir html 2>/dev/null >/dev/null
cd "$root"

# Filename Regions Missed Cover Functions Missed Executed Lines Missed Cover ...
awk 'NR > 2 && $1 != "TOTAL" && NF > 10 { printf "%-44s %6s lines %6s missed %8s\n", $1, $8, $9, $10 }' \
  "$dir/report.txt"
total=$(awk '$1 == "TOTAL" { print $10 " (" $8 - $9 " of " $8 " lines)" }' "$dir/report.txt")
gen=$(awk '$1 == "TOTAL" { print $10 }' "$dir/report-generated.txt")
echo
echo "fuzz corpus line coverage of codec/: $total; generated message headers: $gen"
echo "reports: $dir/report.txt, $dir/report-generated.txt, $dir/html/index.html"
