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
#   KWIRE_FUZZ_PARALLEL  targets fuzzed at the same time (default 1; 2 on 2 cores halves
#                        the wall time: each target still gets one core for its seconds)
#   KWIRE_FUZZ_BIN_DIR   run the targets found there instead of building the fuzz
#                        preset (e.g. build/oss-fuzz-sim/address/out after tools/oss-fuzz-sim.sh,
#                        as .ci/run does: one clang build instead of two)
#   KWIRE_FUZZ_ENGINE    libfuzzer (default) or afl: AFL++'s afl-fuzz on targets built
#                        with its libFuzzer driver, which KWIRE_FUZZ_BIN_DIR must name
#                        (FUZZING_ENGINE=afl tools/oss-fuzz-sim.sh builds them into
#                        build/oss-fuzz-sim/afl-address/out). Seeds: the OSS-Fuzz seed
#                        corpus of the checkout (fuzz/oss-fuzz-seed-corpus.sh: corpus/<target>/
#                        and corpus/regressions/, files longer than max_len left out);
#                        run_fuzzer's AFL_* settings, -t 5000 (ms), -x <target>.dict,
#                        -V <seconds>; KWIRE_FUZZ_ARGS go to afl-fuzz. Numbers from
#                        fuzzer_stats (execs_per_sec, execs_done, edges_found, bitmap_cvg,
#                        corpus_count); each crash or hang is copied into findings/ as
#                        <target>-crash-<sha1 prefix> / <target>-hang-<sha1 prefix>, not minimized.
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
  echo "Environment: KWIRE_FUZZ_JOBS KWIRE_FUZZ_WORK KWIRE_FUZZ_VARIANT KWIRE_FUZZ_ARGS KWIRE_FUZZ_PARALLEL"
  echo "KWIRE_FUZZ_BIN_DIR KWIRE_FUZZ_ENGINE (libfuzzer, or afl: afl-fuzz on the AFL++ build in"
  echo "KWIRE_FUZZ_BIN_DIR, e.g. build/oss-fuzz-sim/afl-address/out; see the header of this"
  echo "script). Exit 0 no finding, 1 findings, 2 usage."
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
engine="${KWIRE_FUZZ_ENGINE:-libfuzzer}"
case "$engine" in
  libfuzzer) ;;
  afl)
    [ -n "${KWIRE_FUZZ_BIN_DIR:-}" ] || usage_error "KWIRE_FUZZ_ENGINE=afl needs KWIRE_FUZZ_BIN_DIR \
(an AFL++ build: FUZZING_ENGINE=afl tools/oss-fuzz-sim.sh, then build/oss-fuzz-sim/afl-address/out)"
    command -v afl-fuzz >/dev/null || usage_error "afl-fuzz not found (tools/install-deps.sh installs afl++)"
    ;;
  *) usage_error "KWIRE_FUZZ_ENGINE must be libfuzzer or afl, got '$engine'" ;;
esac
jobs="${KWIRE_FUZZ_JOBS:-2}"
work="${KWIRE_FUZZ_WORK:-build/fuzz-campaign/$(date +%Y%m%d-%H%M%S)}"
bin_dir="${KWIRE_FUZZ_BIN_DIR:-build/fuzz/fuzz}"

echo "== fuzz campaign: ${#targets[@]} targets x ${secs}s, $engine (work dir ${work}) =="
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
  if [ "$engine" = afl ] && ! grep -q '__afl_persistent_loop' <(nm "$bin_dir/${t}${variant}" 2>/dev/null); then
    echo "$bin_dir/${t}${variant} is not built with AFL++'s driver (FUZZING_ENGINE=afl tools/oss-fuzz-sim.sh)"
    exit 2
  fi
done

# Reads "key = value" from fuzz/<target>.options.
option() { sed -n "s/^$2 *= *//p" "fuzz/$1.options" 2>/dev/null | head -1 || true; }

summary=()
crashes=0

# fuzz_afl <target>: one afl-fuzz run of $secs seconds in $work/<target>/, as run_fuzzer
# starts it in base-runner (its AFL_* and ASAN_OPTIONS), on the target's OSS-Fuzz seeds.
fuzz_afl() {
  local t="$1" bin="$bin_dir/${1}${variant}" dir="$work/${1}${variant}" rc stats a kind sha out
  mkdir -p "$dir/in"
  # The seeds ClusterFuzz gets: corpus/<t>/ and corpus/regressions/ without the files
  # longer than max_len (which afl-fuzz would feed whole) and without README.md.
  fuzz/oss-fuzz-seed-corpus.sh "$t" "$dir" "$(pwd)" 2>"$dir/seeds.log" | sed 's/^/   /'
  sed 's/^/   /' "$dir/seeds.log"
  unzip -q -o "$dir/${t}_seed_corpus.zip" -d "$dir/in"
  local before dict=()
  before=$(find "$dir/in" -type f | wc -l)
  [ -f "fuzz/$t.dict" ] && dict=(-x "fuzz/$t.dict")
  set +e
  # shellcheck disable=SC2086  # KWIRE_FUZZ_ARGS: several afl-fuzz flags
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=0:detect_odr_violation=0" \
  UBSAN_OPTIONS="silence_unsigned_overflow=1:symbolize=0" \
  AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CPUFREQ=1 AFL_TRY_AFFINITY=1 \
  AFL_FAST_CAL=1 AFL_CMPLOG_ONLY_NEW=1 AFL_FORKSRV_INIT_TMOUT=30000 AFL_IGNORE_PROBLEMS=1 \
  AFL_IGNORE_UNKNOWN_ENVS=1 \
    timeout -s INT $((secs + 300)) nice afl-fuzz -i "$dir/in" -o "$dir/afl" -V "$secs" -t 5000 \
      "${dict[@]}" ${KWIRE_FUZZ_ARGS:-} -- "$bin" </dev/null >"$dir/log" 2>&1
  rc=$?
  set -e
  stats="$dir/afl/default/fuzzer_stats"
  stat_get() { if [ -f "$stats" ]; then awk -v k="$1" '$1 == k {print $3; exit}' "$stats"; fi; }
  local execs runs edges cvg after total ncrash nhang status="ok"
  execs=$(stat_get execs_per_sec); runs=$(stat_get execs_done); edges=$(stat_get edges_found)
  cvg=$(stat_get bitmap_cvg); after=$(stat_get corpus_count); total=$(stat_get total_edges)
  ncrash=$(stat_get saved_crashes); nhang=$(stat_get saved_hangs)
  local found=()
  while IFS= read -r -d '' a; do found+=("$a"); done \
    < <(find "$dir/afl/default/crashes" "$dir/afl/default/hangs" -maxdepth 1 -type f \
        -name 'id:*' -print0 2>/dev/null)
  if [ ${#found[@]} -gt 0 ] || [ $rc -ne 0 ] || [ ! -f "$stats" ]; then
    status="FAILED (exit $rc)"
    [ -f "$stats" ] || { echo "-- $t: afl-fuzz did not run; last lines of $dir/log:"; tail -15 "$dir/log"; }
  fi
  printf '%-24s %9s %10s %15s %8s %6s -> %-6s %7s %5s  %s\n' "$t$variant" "${execs:-?}" \
    "${runs:-?}" "${edges:-?}/${total:-?}" "${cvg:-?}" "$before" "${after:-?}" "${ncrash:-?}" \
    "${nhang:-?}" "$status" >"$dir/summary.txt"
  for a in "${found[@]}"; do
    echo "$a" >>"$dir/findings.txt"
    kind=crash
    [[ "$a" == */hangs/* ]] && kind=hang
    sha=$(sha1sum "$a" | cut -c1-12)
    out="$findings/${t}-${kind}-${sha}"
    cp "$a" "$out"
    echo "-- $t: $kind $a"
    echo "   copied to $out (not minimized)"
    if [ "$kind" = hang ]; then
      echo "   reproduce: timeout 25 $bin_dir/$t $out   (AFL++ driver: runs the file once; hang = > 5 s)"
    else
      echo "   reproduce: $bin_dir/$t $out   (AFL++ driver: runs the file once)"
    fi
  done
}

# fuzz_libfuzzer <target>: one libFuzzer run of $secs seconds in $work/<target>/ on a copy
# of corpus/<target>/ (and corpus/regressions/), with the flags of its options file.
fuzz_libfuzzer() {
  local t="$1" bin dir before after max_len args flag rc execs runs last cov ft per_cpu status a kind sha out
  local found=()
  bin="$bin_dir/${t}${variant}"
  dir="$work/${t}${variant}"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  if [ -d "corpus/$t" ]; then cp -r "corpus/$t/." "$dir/corpus/"; fi
  before=$(find "$dir/corpus" -type f | wc -l)
  max_len=$(option "$t" max_len)
  args=(-max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2560
        -artifact_prefix="$dir/artifacts/" -max_len="${max_len:-4096}")
  [ -f "fuzz/$t.dict" ] && args+=(-dict="fuzz/$t.dict")
  # The other flags of the options file's [libfuzzer] section, as OSS-Fuzz's run_fuzzer
  # passes them (e.g. entropic = 0).
  while IFS= read -r flag; do args+=("$flag"); done < <(
    sed -n '/^\[libfuzzer\]/,/^\[/{s/^ *\([a-z_]*\) *= *\(.*[^ ]\) *$/-\1=\2/p}' "fuzz/$t.options" 2>/dev/null |
      grep -v -e '^-max_len=' -e '^-dict=' || true)
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
  printf '%-24s %9s %11s %10s %7s %7s %6s -> %-6s %s\n' "$t$variant" "${execs:-?}" \
    "${per_cpu:-?}" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$before" "$after" "$status" \
    >"$dir/summary.txt"
  for a in "${found[@]}"; do
    echo "$a" >>"$dir/findings.txt"
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
}

# KWIRE_FUZZ_PARALLEL targets at a time (default 1; .ci/run runs 2, one per core). Each
# target writes its summary row and findings into its own folder; they are read back in
# the targets' order below.
parallel="${KWIRE_FUZZ_PARALLEL:-1}"
is_positive_int "$parallel" || usage_error "KWIRE_FUZZ_PARALLEL must be a positive integer, got '$parallel'"
running=0
for t in "${targets[@]}"; do
  if [ "$engine" = afl ]; then fuzz_afl "$t" & else fuzz_libfuzzer "$t" & fi
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true
for t in "${targets[@]}"; do
  dir="$work/${t}${variant}"
  if [ -f "$dir/summary.txt" ]; then
    summary+=("$(cat "$dir/summary.txt")")
  else
    summary+=("$(printf '%-24s did not finish (log: %s/log)' "$t$variant" "$dir")")
    crashes=$((crashes + 1))
  fi
  if [ -f "$dir/findings.txt" ]; then crashes=$((crashes + $(wc -l <"$dir/findings.txt"))); fi
done

echo
if [ "$engine" = afl ]; then
  printf '%-24s %9s %10s %15s %8s %16s %7s %5s  %s\n' target exec/s execs edges/total bitmap \
    "corpus growth" crashes hangs result
else
  printf '%-24s %9s %11s %10s %7s %7s %16s %s\n' target exec/s exec/cpu-s runs cov ft "corpus growth" result
fi
for line in "${summary[@]}"; do echo "$line"; done
echo "logs: $work/<target>/log"
if [ $crashes -gt 0 ]; then
  if [ "$engine" = afl ]; then
    echo "fuzz campaign: $crashes finding(s), copied into $findings/"
  else
    echo "fuzz campaign: $crashes finding(s), minimized into $findings/"
  fi
  echo "  (corpus/ is unchanged; to keep one as a regression input once fixed, see"
  echo "   fuzz/README.md, \"Promoting a finding to corpus/regressions/\")"
  exit 1
fi
rmdir "$findings" 2>/dev/null || true
echo "fuzz campaign: no findings"
