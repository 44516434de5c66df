#!/usr/bin/env bash
# Simulates the OSS-Fuzz / ClusterFuzzLite build without docker: sets up what the
# base-builder image provides ($CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $SRC
# $WORK $OUT $SANITIZER), runs .clusterfuzzlite/build.sh (which runs the shared
# fuzz/oss-fuzz-build.sh, as oss-fuzz/projects/kwire/build.sh does), then imitates
# OSS-Fuzz's build checks (infra/base-images/base-runner/bad_build_check) on $OUT:
#   * every target of fuzz/CMakeLists.txt is an executable in $OUT;
#   * it is instrumented: sanitizer-coverage symbols, and the sanitizer's own
#     (__asan_* for address, __ubsan_* for undefined) and no other sanitizer's;
#   * it starts and runs a few inputs (-runs=4 on an empty corpus);
#   * it has <t>_seed_corpus.zip, non-empty, no seed in it longer than max_len of
#     <t>.options, and runs every seed in it (-runs=0);
#   * its <t>.dict parses (libFuzzer reads it) and <t>.options has a [libfuzzer]
#     section.
# then runs oss-fuzz/projects/kwire/run_tests.sh (every corpus file through every
# target), as OSS-Fuzz runs it after the build.
#
# Usage: tools/oss-fuzz-sim.sh [--checks-only] [-h|--help]
#   --checks-only  skip the build, check the $OUT of an earlier run
# Environment: SANITIZER (address by default; also undefined), KWIRE_BUILD_JOBS
# (default 2), KWIRE_OSS_FUZZ_SIM_DIR (default build/oss-fuzz-sim).
# Differences from the real image, on purpose: clang-14 (OSS-Fuzz ships a newer clang)
# and libstdc++ with Debian's Abseil (OSS-Fuzz adds -stdlib=libc++; the image builds
# Abseil from source, which fuzz/oss-fuzz-build.sh does when $SRC/abseil-cpp exists).
# ccache (picked up by CMakeLists.txt) makes rebuilds fast; the first build compiles
# the codec once more with these flags (several minutes on 2 cores).
set -euo pipefail

usage() {
  echo "Usage: tools/oss-fuzz-sim.sh [--checks-only] [-h|--help]"
  echo "Builds the fuzz targets as OSS-Fuzz does (.clusterfuzzlite/build.sh) without docker"
  echo "into build/oss-fuzz-sim/out, then runs OSS-Fuzz's build checks and run_tests.sh."
  echo "  --checks-only  skip the build; check the output of an earlier run"
  echo "Environment: SANITIZER=address|undefined (default address), KWIRE_BUILD_JOBS (default 2),"
  echo "  KWIRE_OSS_FUZZ_SIM_DIR (default build/oss-fuzz-sim)"
}
checks_only=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --checks-only) checks_only=1 ;;
    *) echo "oss-fuzz-sim: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
root=$(pwd)
sim="${KWIRE_OSS_FUZZ_SIM_DIR:-$root/build/oss-fuzz-sim}"

export SANITIZER="${SANITIZER:-address}"
export FUZZING_ENGINE=libfuzzer
export SRC="$sim/src" WORK="$sim/work" OUT="$sim/out"
if [ $checks_only -eq 1 ]; then
  [ -d "$OUT" ] || { echo "oss-fuzz-sim: --checks-only but no $OUT (run without it first)" >&2; exit 2; }
else
  rm -rf "$OUT"
fi
mkdir -p "$SRC" "$WORK" "$OUT"
ln -sfn "$root" "$SRC/kwire"

# Flags as in OSS-Fuzz's base-clang/base-builder images (compile_* scripts).
export CC=clang-14 CXX=clang++-14
common="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
ubsan_checks="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr"
ubsan_fatal="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr"
case "$SANITIZER" in
  address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
  undefined) san="-fsanitize=$ubsan_checks -fno-sanitize-recover=$ubsan_fatal" ;;
  *) echo "oss-fuzz-sim: SANITIZER=$SANITIZER is not simulated (address, undefined)"; exit 2 ;;
esac
export CFLAGS="$common $san -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
export KWIRE_BUILD_JOBS="${KWIRE_BUILD_JOBS:-2}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-silence_unsigned_overflow=1:print_stacktrace=1}"

start=$(date +%s)
if [ $checks_only -eq 0 ]; then
  echo "== oss-fuzz-sim: building ($SANITIZER) with .clusterfuzzlite/build.sh (log: $sim/build.log) =="
  # Ninja's progress lines ([done/total] ...) on the terminal, everything in the log.
  set +e
  nice "$root/.clusterfuzzlite/build.sh" 2>&1 | tee "$sim/build.log" |
    { grep --line-buffered -E '^\[[0-9]+/[0-9]+\]' | cut -c1-120 | sed -u 's/^/   /' || true; }
  build_rc=${PIPESTATUS[0]}
  set -e
  if [ "$build_rc" -ne 0 ]; then
    tail -40 "$sim/build.log"; echo "oss-fuzz-sim: build failed (log: $sim/build.log)"; exit 1
  fi
  echo "   built in $(( $(date +%s) - start ))s (log: $sim/build.log)"
  grep 'skipping corpus/' "$sim/build.log" | sed 's/^/   /' || true
fi

echo "== oss-fuzz-sim: build checks on $OUT =="
targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' fuzz/CMakeLists.txt | grep -o '[a-z_]*_fuzzer')
failures=0
fail() { echo "   FAIL $1: $2"; failures=$((failures + 1)); }
for t in $targets; do
  failed_before=$failures
  bin="$OUT/$t"
  if [ ! -x "$bin" ]; then fail "$t" "no executable in \$OUT"; continue; fi
  syms=$(nm "$bin" 2>/dev/null || true)
  grep -q '__sanitizer_cov_\(trace_pc_guard\|8bit_counters_init\|pcs_init\)' <<<"$syms" ||
    fail "$t" "no sanitizer coverage instrumentation"
  grep -q 'LLVMFuzzerTestOneInput' <<<"$syms" || fail "$t" "no LLVMFuzzerTestOneInput"
  case "$SANITIZER" in
    address)
      [ "$(grep -c '__asan_report' <<<"$syms")" -gt 0 ] || fail "$t" "not ASan-instrumented"
      ;;
    undefined)
      grep -q '__ubsan_handle' <<<"$syms" || fail "$t" "not UBSan-instrumented"
      ! grep -q '__asan_report_load' <<<"$syms" || fail "$t" "ASan in a UBSan build"
      ;;
  esac
  scratch="$WORK/check/$t"
  rm -rf "$scratch"
  mkdir -p "$scratch/empty" "$scratch/seeds"
  "$bin" -runs=4 "$scratch/empty" >"$scratch/startup.log" 2>&1 ||
    fail "$t" "does not start or run 4 inputs (see $scratch/startup.log)"
  zip="$OUT/${t}_seed_corpus.zip"
  if [ ! -s "$zip" ]; then
    fail "$t" "no ${t}_seed_corpus.zip"
  else
    unzip -q -o "$zip" -d "$scratch/seeds"
    n=$(find "$scratch/seeds" -type f | wc -l)
    [ "$n" -gt 0 ] || fail "$t" "empty seed corpus"
    # No seed longer than max_len: libFuzzer would read only its first max_len bytes.
    max_len=$(sed -n 's/^max_len *= *\([0-9]*\).*/\1/p' "$OUT/$t.options" 2>/dev/null | head -1 || true)
    if [ -n "$max_len" ]; then
      long=$(find "$scratch/seeds" -type f -size +"${max_len}"c -printf '%f (%s bytes) ')
      [ -z "$long" ] || fail "$t" "seeds longer than max_len $max_len in ${t}_seed_corpus.zip: $long"
    fi
    "$bin" -runs=0 "$scratch/seeds" >"$scratch/seeds.log" 2>&1 ||
      fail "$t" "a seed fails (see $scratch/seeds.log)"
  fi
  if [ -f "$OUT/$t.dict" ]; then
    # shellcheck disable=SC2015  # fail when the run fails or the log has a parse error
    "$bin" -runs=0 -dict="$OUT/$t.dict" "$scratch/empty" >"$scratch/dict.log" 2>&1 &&
      ! grep -q 'ParseDictionaryFile' "$scratch/dict.log" ||
      fail "$t" "dictionary does not parse (see $scratch/dict.log)"
  else
    fail "$t" "no $t.dict"
  fi
  grep -q '^\[libfuzzer\]' "$OUT/$t.options" 2>/dev/null || fail "$t" "no $t.options with [libfuzzer]"
  [ $failures -eq $failed_before ] || continue
  printf '   ok   %-24s %6s KB, %5s seeds, %s\n' "$t" "$(( $(stat -c %s "$bin") / 1024 ))" \
    "${n:-0}" "$(grep -m1 -o 'INITED cov: [0-9]* ft: [0-9]*' "$scratch/seeds.log" || echo '?')"
done
echo "== oss-fuzz-sim: oss-fuzz/projects/kwire/run_tests.sh =="
"$root/oss-fuzz/projects/kwire/run_tests.sh" 2>&1 | sed 's/^/   /' ||
  fail run_tests.sh "corpus replay failed"
if [ $failures -gt 0 ]; then
  echo "oss-fuzz-sim: $failures check(s) failed"
  exit 1
fi
echo "oss-fuzz-sim: all build checks passed ($(( $(date +%s) - start ))s)"
