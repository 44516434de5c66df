#!/usr/bin/env bash
# kwire fuzz campaign: builds the fuzz preset (clang-14 + libFuzzer + ASan/UBSan) and
# runs every fuzz target for a while on a copy of its shipped corpus, then prints per
# target: executions per second (wall clock, and per CPU second of the target), coverage
# (libFuzzer's final cov = edges, ft = features), corpus growth and crashes. Every
# crash, leak, timeout or OOM is minimized (-minimize_crash) into
# <work>/findings/<target>-<kind>-<sha1 prefix>, with a one-line command to reproduce it.
# Nothing is written to corpus/: promoting a finding to corpus/regressions/ is a
# separate, reviewed step (fuzz/README.md, "Promoting a finding").
#
# Usage: tools/fuzz-campaign.sh [-h|--help] [seconds-per-target] [target...]
#   seconds   a positive integer; default $KWIRE_FUZZ_SECONDS, else 20
#   targets   default: every target in fuzz/CMakeLists.txt (KWIRE_FUZZERS)
# Environment:
#   KWIRE_FUZZ_JOBS      build parallelism (default 2)
#   KWIRE_FUZZ_WORK      work directory (default build/fuzz-campaign/<timestamp>)
#   KWIRE_FUZZ_VARIANT   binary suffix, e.g. "_bytes" for the frame targets without
#                        the structure-aware mutator (tools/fuzz-mutator-compare.sh)
#   KWIRE_FUZZ_ARGS      extra libFuzzer flags (e.g. "-seed=1 -use_value_profile=1")
#   KWIRE_FUZZ_BIN_DIR   run the targets found there instead of building the fuzz
#                        preset (e.g. build/oss-fuzz-sim/address/out after tools/oss-fuzz-sim.sh,
#                        as .ci/run does: one clang build instead of two)
# The committed corpus is never modified: new inputs and findings stay in the work
# directory. Exit status 0 no finding, 1 finding(s) or a target failed, 2 usage or
# build error.
set -euo pipefail
cd "$(dirname "$0")/.."

usage_line="Usage: tools/fuzz-campaign.sh [-h|--help] [seconds-per-target] [target...]"
usage() {
  echo "$usage_line"
  echo "Builds the fuzz preset and fuzzes each target for the given seconds (a positive"
  echo "integer; default \$KWIRE_FUZZ_SECONDS, else 20) on a copy of corpus/<target>/."
  echo "Findings are minimized into the work folder (build/fuzz-campaign/<timestamp>/findings/),"
  echo "never into corpus/. Targets: $(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' fuzz/CMakeLists.txt |
    grep -o '[a-z_]*_fuzzer' | tr '\n' ' ')"
  echo "Environment: KWIRE_FUZZ_JOBS KWIRE_FUZZ_WORK KWIRE_FUZZ_VARIANT KWIRE_FUZZ_ARGS"
  echo "KWIRE_FUZZ_BIN_DIR (see the header of this script). Exit 0 no finding, 1 findings, 2 usage."
}
usage_error() {
  echo "fuzz-campaign: $1" >&2
  echo "$usage_line" >&2
  echo "(tools/fuzz-campaign.sh --help for more)" >&2
  exit 2
}
is_positive_int() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$((10#$1))" -gt 0 ]; }

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -*) usage_error "unknown option '$1'" ;;
esac
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  secs="$1"
  shift
elif [ $# -gt 0 ] && [[ "$1" != *_fuzzer* ]]; then
  usage_error "seconds must be a positive integer, got '$1'"
else
  secs="${KWIRE_FUZZ_SECONDS:-20}"
fi
is_positive_int "$secs" || usage_error "seconds must be a positive integer, got '$secs'"
secs=$((10#$secs))
all_targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' fuzz/CMakeLists.txt | grep -o '[a-z_]*_fuzzer')
for t in "$@"; do
  case "$t" in -*) usage_error "unknown argument '$t' (libFuzzer flags go in KWIRE_FUZZ_ARGS)" ;; esac
  grep -qx -- "$t" <<<"$all_targets" || usage_error "unknown target '$t'"
done
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  # shellcheck disable=SC2206
  targets=($all_targets)
fi
variant="${KWIRE_FUZZ_VARIANT:-}"
jobs="${KWIRE_FUZZ_JOBS:-2}"
work="${KWIRE_FUZZ_WORK:-build/fuzz-campaign/$(date +%Y%m%d-%H%M%S)}"
bin_dir="${KWIRE_FUZZ_BIN_DIR:-build/fuzz/fuzz}"

echo "== fuzz campaign: ${#targets[@]} targets x ${secs}s (work dir ${work}) =="
findings="$work/findings"
mkdir -p "$work" "$findings"
if [ -z "${KWIRE_FUZZ_BIN_DIR:-}" ]; then
  cmake --preset fuzz >/dev/null
  build_targets=()
  for t in "${targets[@]}"; do build_targets+=("${t}${variant}"); done
  echo "   building the fuzz preset (clang-14; full log: $work/build.log)"
  # Ninja's progress lines ([done/total] ..., cut to 100 characters; line-buffered, so
  # they also appear when the output goes to a file or a pipe), everything in the log.
  set +e
  nice cmake --build build/fuzz -j"$jobs" --target "${build_targets[@]}" 2>&1 |
    tee "$work/build.log" | { grep --line-buffered -oE '^\[[0-9]+/[0-9]+\].{0,100}' || true; }
  build_rc=${PIPESTATUS[0]}
  set -e
  if [ "$build_rc" -ne 0 ]; then
    tail -40 "$work/build.log"; echo "fuzz build failed (log: $work/build.log)"; exit 2
  fi
fi
for t in "${targets[@]}"; do
  [ -x "$bin_dir/${t}${variant}" ] || { echo "no fuzz target $bin_dir/${t}${variant}"; exit 2; }
done

# Reads "key = value" from fuzz/<target>.options.
option() { sed -n "s/^$2 *= *//p" "fuzz/$1.options" 2>/dev/null | head -1 || true; }

summary=()
crashes=0
for t in "${targets[@]}"; do
  bin="$bin_dir/${t}${variant}"
  dir="$work/${t}${variant}"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  if [ -d "corpus/$t" ]; then cp -r "corpus/$t/." "$dir/corpus/"; fi
  before=$(find "$dir/corpus" -type f | wc -l)
  max_len=$(option "$t" max_len)
  args=(-max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2560
        -artifact_prefix="$dir/artifacts/" -max_len="${max_len:-4096}")
  [ -f "fuzz/$t.dict" ] && args+=(-dict="fuzz/$t.dict")
  # shellcheck disable=SC2206
  args+=(${KWIRE_FUZZ_ARGS:-})
  set +e
  # The target's CPU time (user + system), for executions per CPU second: on a busy
  # machine exec/s says more about the other processes than about the target.
  TIMEFORMAT='%U %S'
  { time nice "$bin" "${args[@]}" "$dir/corpus" corpus/regressions >"$dir/log" 2>&1; } 2>"$dir/cpu"
  rc=$?
  set -e
  after=$(find "$dir/corpus" -type f | wc -l)
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$dir/log" | grep -E 'cov: [0-9]+' | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  per_cpu=$(awk -v runs="${runs:-}" '{ cpu = $1 + $2 } END { if (runs != "" && cpu > 0) printf "%d", runs / cpu }' "$dir/cpu" 2>/dev/null || true)
  found=()
  while IFS= read -r -d '' a; do found+=("$a"); done \
    < <(find "$dir/artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \) -print0)
  status="ok"
  if [ ${#found[@]} -gt 0 ] || { [ $rc -ne 0 ] && [ -z "$execs" ]; }; then
    status="FAILED (exit $rc)"
  fi
  summary+=("$(printf '%-24s %9s %11s %10s %7s %7s %6s -> %-6s %s' "$t$variant" "${execs:-?}" \
    "${per_cpu:-?}" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$before" "$after" "$status")")
  for a in "${found[@]}"; do
    crashes=$((crashes + 1))
    kind=$(basename "$a" | cut -d- -f1)
    sha=$(sha1sum "$a" | cut -c1-12)
    out="$findings/${t}-${kind}-${sha}"
    echo "-- $t: $kind $(basename "$a"), minimizing into $out"
    grep -m1 -E '==kwire==|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' \
      "$dir/log" || true
    set +e
    nice "$bin" -minimize_crash=1 -runs=20000 -max_total_time=120 \
      -exact_artifact_path="$out" "$a" >"$dir/minimize-$sha.log" 2>&1
    set -e
    [ -f "$out" ] || cp "$a" "$out"
    echo "   reproduce: $bin_dir/$t $out"
  done
done

echo
printf '%-24s %9s %11s %10s %7s %7s %16s %s\n' target exec/s exec/cpu-s runs cov ft "corpus growth" result
for line in "${summary[@]}"; do echo "$line"; done
echo "logs: $work/<target>/log"
if [ $crashes -gt 0 ]; then
  echo "fuzz campaign: $crashes finding(s), minimized into $findings/"
  echo "  (corpus/ is unchanged; to keep one as a regression input once fixed, see"
  echo "   fuzz/README.md, \"Promoting a finding to corpus/regressions/\")"
  exit 1
fi
rmdir "$findings" 2>/dev/null || true
echo "fuzz campaign: no findings"
