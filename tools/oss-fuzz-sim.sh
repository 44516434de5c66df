#!/usr/bin/env bash
# Simulates the OSS-Fuzz / ClusterFuzzLite build without docker: sets up what the
# base-builder image provides ($CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $SRC
# $WORK $OUT $SANITIZER), runs .clusterfuzzlite/build.sh (which runs the shared
# fuzz/oss-fuzz-build.sh, as oss-fuzz/projects/kwire/build.sh does), then imitates
# base-runner's check_build (infra/base-images/base-runner/bad_build_check) on $OUT:
#   * every target of fuzz/CMakeLists.txt is an x86-64 executable in $OUT with
#     sanitizer coverage and LLVMFuzzerTestOneInput;
#   * it needs no shared library beyond the C/C++ runtime (fuzz/oss-fuzz-check-needed.sh,
#     which the build script runs too) and it STARTS IN A SANDBOX (bubblewrap) that
#     holds only $OUT (as /out, read-only) and the C/C++ runtime libraries, as
#     base-runner has only /out: there, like bad_build_check, it runs -seed=1337
#     -runs=4 on an empty corpus ("Done 4 runs"), with at least 100 edges
#     ("INFO: Loaded ... counters: N"), and no "no interesting inputs were found";
#   * the sanitizer calls that bad_build_check counts (objdump -dC, `call <__asan...`,
#     `__ubsan`, `__msan`, `__dfsan`) meet its thresholds: address builds >= 1000 ASan
#     calls, <= 200 UBSan, <= 3 MSan, 0 DFSan; undefined builds >= 168 UBSan calls and
#     no ASan, MSan (<= 3) or DFSan call;
#   * it has <t>_seed_corpus.zip, non-empty, no seed in it longer than max_len of
#     <t>.options, and runs every seed in the sandbox (-runs=0 -rss_limit_mb=2560
#     -timeout=25, the limits ClusterFuzz fuzzes with);
#   * its <t>.dict parses (libFuzzer reads it) and <t>.options has a [libfuzzer]
#     section;
# then runs oss-fuzz/projects/kwire/run_tests.sh (every corpus file through every
# target), as OSS-Fuzz's check-tests runs it in the builder container.
# FUZZING_ENGINE=afl (SANITIZER=address only, as OSS-Fuzz builds AFL++): base-builder's
# compile_afl instead, with Debian's AFL++ 4.04c for the one OSS-Fuzz builds from source:
# CC=afl-clang-fast CXX=afl-clang-fast++, no -fsanitize=fuzzer-no-link (AFL++ brings its
# own instrumentation; here clang's native trace-pc-guard, AFL_LLVM_INSTRUMENT=LLVMNATIVE,
# because 4.04c's PCGUARD pass has a select off-by-one, see below),
# LIB_FUZZING_ENGINE=/usr/lib/afl/libAFLDriver.a (its libFuzzer-compatible driver), AFL_QUIET AFL_IGNORE_PROBLEMS AFL_IGNORE_UNKNOWN_ENVS and
# no leak checks during the build, afl-fuzz and afl_options.txt copied to $OUT; then the
# same checks where they apply, with bad_build_check's afl rules for the start: afl-fuzz
# ($OUT's, in the sandbox, run_fuzzer's AFL_* settings, -x <t>.dict) on a corpus of one
# file "input" must print "All set and ready to roll" and no "target binary (crashed|
# terminated)" (-V 5 instead of waiting for the 35-s timeout); instead of -runs=0 the
# driver runs every seed file named on its command line (each "Execution successful.");
# the instrumentation check looks for AFL++'s runtime and driver (__afl_area_ptr,
# __afl_persistent_loop); the dictionary check is afl-fuzz loading it.
# Before the build, a negative control proves the two runtime checks work: a small
# target of the leg's engine linked against the shared zlib starts outside the sandbox
# but must fail to start inside it, and fuzz/oss-fuzz-check-needed.sh must reject it.
#
# Usage: tools/oss-fuzz-sim.sh [--checks-only | --negative-control] [-h|--help]
#   --checks-only       skip the build, check the $OUT of an earlier run
#   --negative-control  run only the negative control (no build, no checks)
# Environment: SANITIZER (address by default; also undefined), FUZZING_ENGINE (libfuzzer
# by default; afl), KWIRE_BUILD_JOBS (default 2), KWIRE_OSS_FUZZ_SIM_DIR (default
# build/oss-fuzz-sim).
# Folders: one work and out folder per sanitizer x engine, build/oss-fuzz-sim/<sanitizer>/
# for libFuzzer and build/oss-fuzz-sim/afl-address/ for AFL++, each {work,out} with the
# build log next to them, as OSS-Fuzz builds each sanitizer x engine in a container of
# its own; $SRC (build/oss-fuzz-sim/src) is shared, as the image's is.
# Dependencies: the build script builds abseil-cpp, zlib, snappy, lz4 and zstd from
# $SRC/<name> when they are there (the Dockerfiles clone them at pinned tags; put
# checkouts of those tags in build/oss-fuzz-sim/src/ to simulate that too). Otherwise,
# as in CI, it links Debian's static archives (libabsl_*.a of libabsl-dev, libz.a,
# libsnappy.a, liblz4.a, libzstd.a): static as in OSS-Fuzz, but not instrumented.
# Differences from the real image, on purpose: clang-14 (OSS-Fuzz ships a newer clang)
# and libstdc++ (OSS-Fuzz adds -stdlib=libc++ and builds Abseil from source).
# ccache (picked up by CMakeLists.txt) makes rebuilds fast; the first build compiles
# the codec once more with these flags (several minutes on 2 cores).
set -euo pipefail

usage() {
  echo "Usage: tools/oss-fuzz-sim.sh [--checks-only | --negative-control] [-h|--help]"
  echo "Builds the fuzz targets as OSS-Fuzz does (.clusterfuzzlite/build.sh) without docker"
  echo "into build/oss-fuzz-sim/<sanitizer>/out (AFL++: build/oss-fuzz-sim/afl-address/out),"
  echo "then runs OSS-Fuzz's build checks (each target started in a bubblewrap sandbox"
  echo "holding only the out folder and the C/C++ runtime) and run_tests.sh."
  echo "  --checks-only       skip the build; check the output of an earlier run"
  echo "  --negative-control  only show that the sandbox and the NEEDED check reject a"
  echo "                      target linked against a shared library (zlib)"
  echo "Environment: SANITIZER=address|undefined (default address), FUZZING_ENGINE=libfuzzer|afl"
  echo "  (default libfuzzer; afl: AFL++'s afl-clang-fast and libFuzzer driver, address only),"
  echo "  KWIRE_BUILD_JOBS (default 2), KWIRE_OSS_FUZZ_SIM_DIR (default build/oss-fuzz-sim)"
}
checks_only=0
negative_only=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --checks-only) checks_only=1 ;;
    --negative-control) negative_only=1 ;;
    *) echo "oss-fuzz-sim: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ $checks_only -eq 1 ] && [ $negative_only -eq 1 ]; then
  echo "oss-fuzz-sim: --checks-only and --negative-control exclude each other" >&2; exit 2
fi
for tool in bwrap clang-14 objdump readelf file unzip; do
  command -v "$tool" >/dev/null ||
    { echo "oss-fuzz-sim: $tool not found (tools/install-deps.sh installs it)" >&2; exit 2; }
done

cd "$(dirname "$0")/.."
root=$(pwd -P)
sim="${KWIRE_OSS_FUZZ_SIM_DIR:-$root/build/oss-fuzz-sim}"
# AFL++'s libFuzzer-compatible driver (utils/aflpp_driver): main(), the persistent loop
# around LLVMFuzzerTestOneInput. OSS-Fuzz's compile_afl copies the one it builds to
# $LIB_FUZZING_ENGINE (/usr/lib/libFuzzingEngine.a).
afl_driver=/usr/lib/afl/libAFLDriver.a

export SANITIZER="${SANITIZER:-address}"
case "$SANITIZER" in
  address|undefined) ;;
  *) echo "oss-fuzz-sim: SANITIZER=$SANITIZER is not simulated (address, undefined)" >&2; exit 2 ;;
esac
export FUZZING_ENGINE="${FUZZING_ENGINE:-libfuzzer}"
case "$FUZZING_ENGINE" in
  libfuzzer) leg="$SANITIZER" ;;
  afl)
    # OSS-Fuzz builds AFL++ with ASan only (infra/build/functions/build_lib.py ENGINE_INFO).
    [ "$SANITIZER" = address ] ||
      { echo "oss-fuzz-sim: OSS-Fuzz builds FUZZING_ENGINE=afl with SANITIZER=address only" >&2; exit 2; }
    for tool in afl-clang-fast afl-clang-fast++ afl-fuzz; do
      command -v "$tool" >/dev/null ||
        { echo "oss-fuzz-sim: $tool not found (tools/install-deps.sh installs afl++)" >&2; exit 2; }
    done
    [ -f "$afl_driver" ] ||
      { echo "oss-fuzz-sim: no $afl_driver (AFL++'s libFuzzer driver; Debian's afl++ ships it)" >&2; exit 2; }
    leg="afl-$SANITIZER" ;;
  *) echo "oss-fuzz-sim: FUZZING_ENGINE=$FUZZING_ENGINE is not simulated (libfuzzer, afl)" >&2; exit 2 ;;
esac
export ARCHITECTURE=x86_64
export SRC="$sim/src" WORK="$sim/$leg/work" OUT="$sim/$leg/out"
if [ $checks_only -eq 1 ]; then
  [ -d "$OUT" ] || { echo "oss-fuzz-sim: --checks-only but no $OUT (run without it first)" >&2; exit 2; }
elif [ $negative_only -eq 0 ]; then
  rm -rf "$OUT"
fi
mkdir -p "$SRC" "$WORK" "$OUT"
ln -sfn "$root" "$SRC/kwire"
# The build script reads the checkout through its real path rather than the $SRC/kwire
# link: CMakeLists.txt gives ccache CCACHE_BASEDIR=<source dir>, and the work folders
# are under it, so every path ccache hashes is relative and a fresh clone anywhere
# (CI's) reuses the objects of an earlier run.
export KWIRE_SRC="$root"

# Flags as in OSS-Fuzz's base-clang/base-builder images (compile_* scripts).
common="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
ubsan_checks="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr"
ubsan_fatal="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr"
case "$SANITIZER" in
  address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
  undefined) san="-fsanitize=$ubsan_checks -fno-sanitize-recover=$ubsan_fatal" ;;
esac
if [ "$FUZZING_ENGINE" = libfuzzer ]; then
  export CC=clang-14 CXX=clang++-14
  export CFLAGS="$common $san -fsanitize=fuzzer-no-link"
  export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
else
  # compile_afl: AFL++'s compiler wrappers (Debian's run clang-14) bring their own
  # coverage instrumentation, so `compile` leaves out COVERAGE_FLAGS
  # (-fsanitize=fuzzer-no-link); the driver is the engine; quiet wrappers, no leak
  # checks while configure tests run, problems and unknown AFL_ variables ignored.
  export CC=afl-clang-fast CXX=afl-clang-fast++
  export CFLAGS="$common $san"
  export LIB_FUZZING_ENGINE="$afl_driver"
  export AFL_QUIET=1 AFL_IGNORE_PROBLEMS=1 AFL_IGNORE_UNKNOWN_ENVS=1
  export ASAN_OPTIONS="detect_leaks=0:symbolize=0:detect_odr_violation=0:abort_on_error=1"
  # Instrumentation: clang's own trace-pc-guard (AFL_LLVM_INSTRUMENT=LLVMNATIVE, edge
  # guards fed to AFL++'s runtime) instead of AFL++ 4.04c's PCGUARD pass. That pass has an
  # off-by-one in its `select` instrumentation (fixed upstream in 420e36dc, "select counter
  # off by one error", first released in 4.08c; OSS-Fuzz builds a newer AFL++): the last
  # select of each function reads the guard one past its function's guard array. Harmless
  # while the next array follows; for the array that ends the __sancov_guards section it
  # reads the first bytes of .bss, not a guard, and the map write SEGVs. Whichever function
  # links last meets it, so it moves with unrelated changes (boost::crc's table, 2026-12-03;
  # EscapeUtf8ForDisplay in request_explain_fuzzer, 2026-12-04: the read was at exactly
  # .bss's start). Native guards have no select slots, so the whole class is gone.
  # ccache does not see AFL_ variables: the settings file is hashed with every compile, so
  # objects of another instrumentation are never reused.
  export AFL_LLVM_INSTRUMENT=LLVMNATIVE
  afl_settings="$root/build/oss-fuzz-sim/afl-settings.txt"
  mkdir -p "$(dirname "$afl_settings")"
  printf 'AFL_LLVM_INSTRUMENT=%s\n' "$AFL_LLVM_INSTRUMENT" >"$afl_settings"
  export CCACHE_EXTRAFILES="$afl_settings"
fi
export CXXFLAGS="$CFLAGS"
export KWIRE_BUILD_JOBS="${KWIRE_BUILD_JOBS:-2}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-silence_unsigned_overflow=1:print_stacktrace=1}"
if [ "$FUZZING_ENGINE" = afl ] && [ $checks_only -eq 0 ] && [ $negative_only -eq 0 ]; then
  # compile_afl copies AFL++'s tools next to the targets (run_fuzzer starts $OUT/afl-fuzz)
  # and records the build's AFL_ settings in afl_options.txt.
  cp "$(command -v afl-fuzz)" "$OUT/"
  env | grep '^AFL_' | sort >"$OUT/afl_options.txt" || true
fi

# ---- The sandbox: what base-runner has. Only $OUT (read-only, as /out), the C/C++
# runtime libraries (the list of fuzz/oss-fuzz-check-needed.sh), /proc, /dev and an empty
# /tmp; no /usr/lib, no ld.so.cache, no network.
runtime_libs="libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libstdc++.so.6 libgcc_s.so.1"
libdir=/usr/lib/x86_64-linux-gnu
sandbox=(bwrap --unshare-all --die-with-parent --new-session
  --tmpfs /tmp --proc /proc --dev /dev --dir /usr/lib/x86_64-linux-gnu
  --symlink usr/lib /lib --dir /lib64
  --ro-bind "$(readlink -f /lib64/ld-linux-x86-64.so.2)" /lib64/ld-linux-x86-64.so.2)
for lib in $runtime_libs; do
  [ -e "$libdir/$lib" ] || { echo "oss-fuzz-sim: no $libdir/$lib" >&2; exit 2; }
  sandbox+=(--ro-bind "$(readlink -f "$libdir/$lib")" "$libdir/$lib")
done
# in_sandbox <out dir> <command...>: runs the command with <out dir> as /out.
in_sandbox() {
  local out="$1"
  shift
  "${sandbox[@]}" --ro-bind "$out" /out --chdir /tmp "$@"
}
# AFL++ runs: afl-fuzz (copied to $OUT, as compile_afl does) needs libraries of its own
# (Debian's links libpython3.11, libz, libexpat). They go to /afl-lib in the sandbox and
# only afl-fuzz gets them, through the loader's --library-path, which its children do not
# inherit: the target afl-fuzz starts finds only the C/C++ runtime, as in base-runner.
afl_lib_binds=()
if [ "$FUZZING_ENGINE" = afl ]; then
  while read -r lib; do
    afl_lib_binds+=(--ro-bind "$(readlink -f "$lib")" "/afl-lib/$(basename "$lib")")
  done < <(ldd "$(command -v afl-fuzz)" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
fi
# afl_fuzz_in_sandbox <out dir> <target> <input dir> <log> <afl-fuzz args...>: run_fuzzer's
# AFL++ command line (its AFL_* and ASAN_OPTIONS, -t 5000, the .options' dict as -x) in
# the sandbox: <out dir> as /out, <input dir> read-only as the corpus, output in /tmp.
afl_fuzz_in_sandbox() {
  local out="$1" t="$2" in="$3" log="$4" dict
  shift 4
  dict=$(sed -n 's/^\s*dict\s*=\s*\(.*\)/\1/p' "$out/$t.options" 2>/dev/null | tail -1 || true)
  [ -n "$dict" ] || { [ -f "$out/$t.dict" ] && dict="$t.dict"; }
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=0:detect_odr_violation=0" \
  UBSAN_OPTIONS="$UBSAN_OPTIONS:symbolize=0" \
  AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CPUFREQ=1 AFL_TRY_AFFINITY=1 \
  AFL_FAST_CAL=1 AFL_CMPLOG_ONLY_NEW=1 AFL_FORKSRV_INIT_TMOUT=30000 AFL_IGNORE_PROBLEMS=1 \
  AFL_IGNORE_UNKNOWN_ENVS=1 AFL_NO_UI=1 \
    timeout --preserve-status -s INT 35s \
    "${sandbox[@]}" "${afl_lib_binds[@]}" --ro-bind "$out" /out --ro-bind "$in" "/tmp/${t}_corpus" \
      --chdir /out /lib64/ld-linux-x86-64.so.2 --library-path /afl-lib /out/afl-fuzz \
      -i "/tmp/${t}_corpus" -o "/tmp/${t}_afl_address_out" -t 5000 ${dict:+-x "/out/$dict"} "$@" \
      -- "/out/$t" >"$log" 2>&1
}
# check_start <binary in out dir> <log>: bad_build_check's check_engine and
# check_startup_crash, in the sandbox. Prints what failed; exit status 1 then.
check_start() {
  local bin="$1" log="$2" edges
  if [ "$FUZZING_ENGINE" = afl ]; then
    check_start_afl "$@"; return
  fi
  in_sandbox "$(dirname "$bin")" "/out/$(basename "$bin")" -seed=1337 -runs=4 >"$log" 2>&1 || true
  if grep -q 'no interesting inputs were found' "$log"; then
    echo "no coverage instrumentation (see $log)"; return 1
  fi
  if ! grep -q 'Done 4 runs' "$log"; then
    echo "does not start in the sandbox (only /out and the C/C++ runtime): $(grep -m1 -i 'error' "$log" || tail -1 "$log")"
    return 1
  fi
  edges=$(grep -Po 'INFO: Loaded [[:digit:]]+ module.*\(.*(counters|guards)\):[[:space:]]+\K[[:digit:]]+' "$log" | head -1)
  if [ -z "$edges" ] || [ "$edges" -lt 100 ]; then
    echo "only ${edges:-no} edges instrumented (bad_build_check wants >= 100)"; return 1
  fi
}
# For afl, bad_build_check runs run_fuzzer with no seed corpus (a file "input" only) under
# `timeout -s INT 35s`: afl-fuzz must print "All set and ready to roll" (check_engine)
# and no "target binary (crashed|terminated)" (check_startup_crash). Here -V 5 ends the
# run 5 s after that line instead of waiting for the timeout. afl-fuzz refuses a
# dictionary it cannot parse, so this also checks the .dict (and that it loaded).
check_start_afl() {
  local bin="$1" log="$2" in
  in="$WORK/check/$(basename "$1")-afl-in"
  rm -rf "$in"
  mkdir -p "$in"
  echo input >"$in/input"
  afl_fuzz_in_sandbox "$(dirname "$bin")" "$(basename "$bin")" "$in" "$log" -V 5 || true
  if grep -Eq 'target binary (crashed|terminated)' "$log"; then
    echo "crashes or exits under afl-fuzz in the sandbox (see $log): $(grep -m1 -oE 'the target binary (crashed|terminated)[a-z ]*' "$log")"
    return 1
  fi
  if ! grep -q 'All set and ready to roll' "$log"; then
    echo "afl-fuzz does not get going in the sandbox (see $log): $(grep -m1 -E 'PROGRAM ABORT|error while loading' "$log" || tail -1 "$log")"
    return 1
  fi
  if [ -f "${bin}.dict" ] && ! grep -Eq 'Loaded a total of [1-9][0-9]* extras' "$log"; then
    echo "afl-fuzz did not load ${bin}.dict (see $log)"; return 1
  fi
}

# ---- Negative control: a target that needs a shared library other than the runtime.
negative_control() {
  local dir="$WORK/negative-control" bin msg rc=0
  # The sandbox itself works (else every start would fail for another reason).
  msg=$(in_sandbox "$WORK" /lib64/ld-linux-x86-64.so.2 --version 2>&1 | head -1) ||
    { echo "   bwrap fails: $msg"; return 1; }
  echo "   sandbox: $msg"
  rm -rf "$dir"
  mkdir -p "$dir/out"
  bin="$dir/out/needs_libz_fuzzer"
  cat >"$dir/needs_libz_fuzzer.c" <<'C'
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return (int)(crc32(0L, data, (uInt)size) & 0); /* calls into libz.so.1 */
}
C
  # Built for the leg's engine, so that it goes through the same start check as the targets.
  # shellcheck disable=SC2086
  $CC $CFLAGS "$dir/needs_libz_fuzzer.c" $LIB_FUZZING_ENGINE -o "$bin" -lz
  echo "   negative control: ${bin#"$root"/}, linked with -lz (shared), $FUZZING_ENGINE"
  if [ "$FUZZING_ENGINE" = afl ]; then
    # The driver runs a file argument once; afl-fuzz goes with it into the sandbox's /out.
    cp "$(command -v afl-fuzz)" "$dir/out/"
    echo seed >"$dir/seed"
    if "$bin" "$dir/seed" >"$dir/outside.log" 2>&1 && grep -q 'Execution successful' "$dir/outside.log"; then
      echo "   outside the sandbox: starts (runs an input: Execution successful)"
    else
      echo "   outside the sandbox: does not start (see $dir/outside.log): the control is broken"; rc=1
    fi
  elif "$bin" -seed=1337 -runs=4 >"$dir/outside.log" 2>&1 && grep -q 'Done 4 runs' "$dir/outside.log"; then
    echo "   outside the sandbox: starts (Done 4 runs)"
  else
    echo "   outside the sandbox: does not start (see $dir/outside.log): the control is broken"; rc=1
  fi
  if msg=$(check_start "$bin" "$dir/sandbox.log"); then
    echo "   in the sandbox: starts: THE SANDBOX DOES NOT ISOLATE (see $dir/sandbox.log)"; rc=1
  elif [ "$FUZZING_ENGINE" = afl ] &&
       # afl-fuzz hides the target's stderr ("the target binary terminated before we
       # could complete a handshake"): the loader's message comes from a direct start.
       ! { in_sandbox "$dir/out" "/out/$(basename "$bin")" "/out/$(basename "$bin")" >"$dir/direct.log" 2>&1
           grep -q 'error while loading shared libraries: libz.so.1' "$dir/direct.log"; }; then
    echo "   in the sandbox: fails, but not for libz.so.1: $msg"; rc=1
  elif [ "$FUZZING_ENGINE" = libfuzzer ] && ! grep -q 'error while loading shared libraries: libz.so.1' "$dir/sandbox.log"; then
    echo "   in the sandbox: fails, but not for libz.so.1: $msg"; rc=1
  else
    echo "   in the sandbox: rejected: $msg"
    if [ "$FUZZING_ENGINE" = afl ]; then
      echo "   started directly in the sandbox: $(grep -m1 -o 'error while loading shared libraries: libz.so.1' "$dir/direct.log")"
    fi
  fi
  if "$root/fuzz/oss-fuzz-check-needed.sh" "$bin" | sed 's/^/   /'; then
    echo "   oss-fuzz-check-needed.sh accepted it: THE NEEDED CHECK IS BROKEN"; rc=1
  fi
  if [ $rc -eq 0 ]; then
    echo "   negative control ok: both checks reject a target that needs libz.so.1"
  fi
  return $rc
}

echo "== oss-fuzz-sim: negative control (sandbox and NEEDED check) =="
negative_control || { echo "oss-fuzz-sim: negative control failed"; exit 1; }
[ $negative_only -eq 0 ] || exit 0

start=$(date +%s)
log="$sim/$leg/build.log"
if [ $checks_only -eq 0 ]; then
  echo "== oss-fuzz-sim: building ($leg) with .clusterfuzzlite/build.sh (log: $log) =="
  # Ninja's progress lines ([done/total] ...) on the terminal, everything in the log.
  set +e
  nice "$root/.clusterfuzzlite/build.sh" 2>&1 | tee "$log" |
    { grep --line-buffered -E '^\[[0-9]+/[0-9]+\]|^oss-fuzz-build: [a-z0-9-]+: |^oss-fuzz-build: [a-z0-9-]+ from ' |
      stdbuf -oL cut -c1-120 | sed -u 's/^/   /' || true; }
  build_rc=${PIPESTATUS[0]}
  set -e
  if [ "$build_rc" -ne 0 ]; then
    tail -40 "$log"; echo "oss-fuzz-sim: build failed (log: $log)"; exit 1
  fi
  echo "   built in $(( $(date +%s) - start ))s (log: $log)"
  grep 'skipping corpus/' "$log" | sed 's/^/   /' || true
fi

# The build's ASAN_OPTIONS (compile_afl: no leak checks while configure tests run) end
# with the build: seeds and corpus are replayed with leak detection, as base-runner does.
[ "$FUZZING_ENGINE" = libfuzzer ] || export ASAN_OPTIONS="detect_leaks=1"
echo "== oss-fuzz-sim: build checks on $OUT ($leg; targets started in the sandbox) =="
targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' fuzz/CMakeLists.txt | grep -o '[a-z_]*_fuzzer')
failures=0
fail() { echo "   FAIL $1: $2"; failures=$((failures + 1)); }
for t in $targets; do
  failed_before=$failures
  bin="$OUT/$t"
  if [ ! -x "$bin" ]; then fail "$t" "no executable in \$OUT"; continue; fi
  file -L "$bin" | grep -q 'x86-64' || fail "$t" "not an x86-64 binary: $(file -L "$bin")"
  syms=$(nm "$bin" 2>/dev/null || true)
  if [ "$FUZZING_ENGINE" = afl ]; then
    # AFL++'s runtime (coverage map) and the driver's persistent loop.
    { grep -q ' __afl_area_ptr$' <<<"$syms" && grep -q ' __afl_persistent_loop$' <<<"$syms"; } ||
      fail "$t" "no AFL++ instrumentation runtime or driver (__afl_area_ptr, __afl_persistent_loop)"
  else
    grep -q '__sanitizer_cov_\(trace_pc_guard\|8bit_counters_init\|pcs_init\)' <<<"$syms" ||
      fail "$t" "no sanitizer coverage instrumentation"
  fi
  grep -q 'LLVMFuzzerTestOneInput' <<<"$syms" || fail "$t" "no LLVMFuzzerTestOneInput"
  needed=$("$root/fuzz/oss-fuzz-check-needed.sh" "$bin") || fail "$t" "${needed#*FAIL }"
  # bad_build_check's check_mixed_sanitizers: calls to each sanitizer's runtime.
  read -r asan ubsan msan dfsan < <(objdump -dC "$bin" | awk '
    /callq?[ \t]+[0-9a-f]+[ \t]+<__asan/ {a++} /callq?[ \t]+[0-9a-f]+[ \t]+<__ubsan/ {u++}
    /callq?[ \t]+[0-9a-f]+[ \t]+<__msan/ {m++} /callq?[ \t]+[0-9a-f]+[ \t]+<__dfsan/ {d++}
    END {print a+0, u+0, m+0, d+0}')
  [ "$msan" -le 3 ] || fail "$t" "$msan MSan calls (bad_build_check: <= 3 outside MSan builds)"
  [ "$dfsan" -eq 0 ] || fail "$t" "$dfsan DFSan calls (bad_build_check: none outside DFSan builds)"
  case "$SANITIZER" in
    address)
      [ "$asan" -ge 1000 ] || fail "$t" "$asan ASan calls (bad_build_check: >= 1000 in an ASan build)"
      [ "$ubsan" -le 200 ] || fail "$t" "$ubsan UBSan calls (bad_build_check: <= 200 in an ASan build)"
      ;;
    undefined)
      [ "$ubsan" -ge 168 ] || fail "$t" "$ubsan UBSan calls (bad_build_check: >= 168 in an UBSan build)"
      [ "$asan" -eq 0 ] || fail "$t" "$asan ASan calls (bad_build_check: none in an UBSan build)"
      ;;
  esac
  scratch="$WORK/check/$t"
  rm -rf "$scratch"
  mkdir -p "$scratch/seeds"
  msg=$(check_start "$bin" "$scratch/startup.log") || fail "$t" "$msg"
  zip="$OUT/${t}_seed_corpus.zip"
  n=0
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
    if [ "$FUZZING_ENGINE" = afl ]; then
      # AFL++'s driver runs the files named on its command line (a directory is silently
      # skipped, and so is an empty file): every non-empty seed must say so.
      nonempty=$(find "$scratch/seeds" -type f -size +0 | wc -l)
      (cd "$scratch/seeds" && find . -type f -size +0 -printf '/tmp/seeds/%P\0' |
        xargs -0 "${sandbox[@]}" --ro-bind "$OUT" /out --ro-bind "$scratch/seeds" /tmp/seeds \
          --chdir /tmp "/out/$t") >"$scratch/seeds.log" 2>&1 ||
        fail "$t" "a seed fails in the sandbox (see $scratch/seeds.log)"
      ran=$(grep -c '^Execution successful' "$scratch/seeds.log" || true)
      [ "$ran" -eq "$nonempty" ] ||
        fail "$t" "the driver ran $ran of $nonempty non-empty seeds (see $scratch/seeds.log)"
    else
      # As run_fuzzer does: the seeds unpacked next to the target, in the sandbox.
      in_sandbox "$OUT" --ro-bind "$scratch/seeds" "/tmp/${t}_corpus" \
        "/out/$t" -runs=0 -rss_limit_mb=2560 -timeout=25 "/tmp/${t}_corpus" >"$scratch/seeds.log" 2>&1 ||
        fail "$t" "a seed fails in the sandbox (see $scratch/seeds.log)"
    fi
  fi
  if [ "$FUZZING_ENGINE" = afl ]; then
    [ -f "$OUT/$t.dict" ] || fail "$t" "no $t.dict"   # afl-fuzz parsed it in check_start
  elif [ -f "$OUT/$t.dict" ]; then
    # shellcheck disable=SC2015  # fail when the run fails or the log has a parse error
    in_sandbox "$OUT" "/out/$t" -runs=0 -dict="/out/$t.dict" >"$scratch/dict.log" 2>&1 &&
      ! grep -q 'ParseDictionaryFile' "$scratch/dict.log" ||
      fail "$t" "dictionary does not parse (see $scratch/dict.log)"
  else
    fail "$t" "no $t.dict"
  fi
  grep -q '^\[libfuzzer\]' "$OUT/$t.options" 2>/dev/null || fail "$t" "no $t.options with [libfuzzer]"
  [ $failures -eq $failed_before ] || continue
  if [ "$FUZZING_ENGINE" = afl ]; then
    started="afl-fuzz: $(grep -m1 -o 'Loaded a total of [0-9]* extras' "$scratch/startup.log" |
      sed 's/Loaded a total of \([0-9]*\) extras/\1 dict tokens/'), ready to roll"
  else
    started=$(grep -m1 -o 'INITED cov: [0-9]* ft: [0-9]*' "$scratch/seeds.log" || echo '?')
  fi
  printf '   ok   %-22s %6s KB, %4s seeds, %s, calls asan %s ubsan %s, NEEDED: %s\n' "$t" \
    "$(( $(stat -c %s "$bin") / 1024 ))" "$n" "$started" \
    "$asan" "$ubsan" "${needed#*NEEDED: }"
done
echo "== oss-fuzz-sim: oss-fuzz/projects/kwire/run_tests.sh =="
"$root/oss-fuzz/projects/kwire/run_tests.sh" 2>&1 | sed 's/^/   /' ||
  fail run_tests.sh "corpus replay failed"
if [ $failures -gt 0 ]; then
  echo "oss-fuzz-sim: $failures check(s) failed ($leg)"
  exit 1
fi
echo "oss-fuzz-sim: all build checks passed ($leg, $(( $(date +%s) - start ))s)"
