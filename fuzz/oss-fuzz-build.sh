#!/bin/bash -eu
# Builds kwire's fuzz targets the OSS-Fuzz way. The one build script shared by
# ClusterFuzzLite (.clusterfuzzlite/build.sh), the OSS-Fuzz project
# (oss-fuzz/projects/kwire/build.sh) and tools/oss-fuzz-sim.sh.
#
# Inputs (set by the OSS-Fuzz base-builder image, or by tools/oss-fuzz-sim.sh):
#   CC CXX CFLAGS CXXFLAGS   compiler and sanitizer/coverage flags
#   LIB_FUZZING_ENGINE       engine to link (-fsanitize=fuzzer for libFuzzer)
#   SRC WORK OUT             sources, scratch space, output directory
#   SANITIZER FUZZING_ENGINE address / undefined / coverage ..., libfuzzer / afl ...
#   ARCHITECTURE             x86_64 / i386 / aarch64 (optional)
#   KWIRE_SRC                kwire checkout (default: $SRC/kwire)
#   KWIRE_BUILD_JOBS         build parallelism (default: all cores)
# Dependencies, static and built with the same $CC $CFLAGS $CXXFLAGS as the targets
# (instrumented; what base-runner lacks, no shared library, and MSan-ready), from the
# sources the Dockerfiles clone at pinned tags into $SRC: abseil-cpp, zlib, snappy, lz4,
# zstd. A source missing from $SRC (tools/oss-fuzz-sim.sh on Debian) falls back to the
# system's static archive (Debian's -dev packages ship libz.a, libsnappy.a, liblz4.a,
# libzstd.a, libabsl_*.a): linked statically as well, but not instrumented. CRC-32C
# uses the Boost backend (header-only, compiled into kwire), not ISA-L.
# Build trees go to $WORK/kwire-<sanitizer>-<engine>[-<arch>]-<hash of compilers, flags
# and dependency revisions>/ (deps-build/<dep>, deps: their install prefix, kwire-build):
# a $WORK reused across builds (local helper.py runs, tools/oss-fuzz-sim.sh) never mixes
# objects of two configurations, e.g. an UBSan build linking the ASan-built Abseil of an
# earlier run.
# At the end, fuzz/oss-fuzz-check-needed.sh fails the build when a target needs a shared
# library that base-runner does not have (anything beyond the C/C++ runtime).
# Output in $OUT, for every fuzz target <t> of fuzz/CMakeLists.txt:
#   <t>  <t>.dict  <t>.options  <t>_seed_corpus.zip (corpus/<t>/ + corpus/regressions/,
#   without the files longer than max_len of <t>.options: fuzz/oss-fuzz-seed-corpus.sh)
set -o pipefail

case "${1:-}" in
  -h|--help) sed -n '2,/^set -o pipefail/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "oss-fuzz-build: no arguments (the OSS-Fuzz image sets the environment); --help" >&2; exit 2 ;;
esac
for v in CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE SRC WORK OUT; do
  [ -n "${!v+set}" ] || { echo "oss-fuzz-build: $v is not set (the OSS-Fuzz image sets it)" >&2; exit 2; }
done
kwire="${KWIRE_SRC:-$SRC/kwire}"
jobs="${KWIRE_BUILD_JOBS:-$(nproc)}"
targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' "$kwire/fuzz/CMakeLists.txt" | grep -o '[a-z_]*_fuzzer')

# One work folder per sanitizer x engine x architecture x compiler/flags (and dependency
# source revisions, AFL++'s instrumentation settings): everything that changes the objects.
deps_list="abseil-cpp zlib snappy lz4 zstd"
revs=""
for d in $deps_list; do
  if [ -d "$SRC/$d" ]; then
    revs+="$d=$(git -C "$SRC/$d" rev-parse HEAD 2>/dev/null || echo unknown) "
  fi
done
# AFL++'s compiler wrappers also take their instrumentation from the environment
# (AFL_LLVM_INSTRUMENT, AFL_LLVM_DENYLIST, AFL_USE_ASAN, ...): part of the key too (when
# set: other builds keep their keys).
afl_env=$(env | grep -E '^AFL_(LLVM|USE)_' | LC_ALL=C sort || true)  # none: grep fails (bash -e)
flags_hash=$(printf '%s\n' "$CC" "$CXX" "$CFLAGS" "$CXXFLAGS" "$LIB_FUZZING_ENGINE" "$revs" ${afl_env:+"$afl_env"} |
  sha1sum | cut -c1-10)
build_key="${SANITIZER:-nosanitizer}-${FUZZING_ENGINE:-noengine}${ARCHITECTURE:+-$ARCHITECTURE}-$flags_hash"
build_dir="$WORK/kwire-$build_key"
deps="$build_dir/deps"
mkdir -p "$build_dir"
echo "oss-fuzz-build: work folder $build_dir"

# build_dep <name> <cmake source dir> [cmake args...]: configure, build and install one
# dependency into $deps, once per work folder. Flags come only from $CFLAGS/$CXXFLAGS
# (CMAKE_BUILD_TYPE=Release with empty Release flags: no -O3, no -DNDEBUG of its own;
# snappy needs the Release slot, which comes after the -fno-rtti -Werror it appends).
build_dep() {
  local name="$1" src="$2"
  shift 2
  if [ -f "$build_dir/deps-build/$name.done" ]; then
    echo "oss-fuzz-build: $name from $SRC/$name (built earlier in this work folder)"
    return
  fi
  echo "oss-fuzz-build: $name from $SRC/$name ($(git -C "$SRC/$name" describe --tags 2>/dev/null || echo '?')), static"
  cmake -S "$src" -B "$build_dir/deps-build/$name" -G Ninja -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE= -DCMAKE_CXX_FLAGS_RELEASE= \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
    -DCMAKE_INSTALL_PREFIX="$deps" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_PREFIX_PATH="$deps" \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 "$@" >"$build_dir/deps-build/$name.log" 2>&1 ||
    { tail -30 "$build_dir/deps-build/$name.log"; exit 1; }
  cmake --build "$build_dir/deps-build/$name" -j"$jobs"
  cmake --install "$build_dir/deps-build/$name" >/dev/null
  touch "$build_dir/deps-build/$name.done"
}
mkdir -p "$build_dir/deps-build" "$deps/lib/pkgconfig"
export PKG_CONFIG_PATH="$deps/lib/pkgconfig:$deps/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
for d in $deps_list; do
  [ -d "$SRC/$d" ] && continue
  echo "oss-fuzz-build: $d: no $SRC/$d, the system's static archive (not instrumented)"
done
if [ -d "$SRC/abseil-cpp" ]; then
  # The same C++ standard as kwire: absl's ABI (e.g. absl::string_view) depends on it.
  build_dep abseil-cpp "$SRC/abseil-cpp" -DCMAKE_CXX_STANDARD=20 -DABSL_PROPAGATE_CXX_STD=ON \
    -DABSL_BUILD_TESTING=OFF -DBUILD_TESTING=OFF
fi
if [ -d "$SRC/zlib" ]; then
  build_dep zlib "$SRC/zlib" -DZLIB_BUILD_EXAMPLES=OFF
fi
if [ -d "$SRC/snappy" ]; then
  # snappy appends -fno-rtti (which -fsanitize=vptr rejects) and -Werror for clang.
  build_dep snappy "$SRC/snappy" -DCMAKE_CXX_FLAGS_RELEASE="-frtti -Wno-error" \
    -DSNAPPY_BUILD_TESTS=OFF -DSNAPPY_BUILD_BENCHMARKS=OFF
  # snappy installs no pkg-config file; kwire finds it by pkg-config (as on Debian).
  # shellcheck disable=SC2016  # ${prefix} is pkg-config's variable
  printf '%s\n' "prefix=$deps" 'Name: snappy' 'Description: snappy (fuzz build)' \
    "Version: $(git -C "$SRC/snappy" describe --tags 2>/dev/null || echo 0)" \
    'Cflags: -I${prefix}/include' 'Libs: -L${prefix}/lib -lsnappy' >"$deps/lib/pkgconfig/snappy.pc"
fi
if [ -d "$SRC/lz4" ]; then
  build_dep lz4 "$SRC/lz4/build/cmake" -DBUILD_STATIC_LIBS=ON -DLZ4_BUILD_CLI=OFF
fi
if [ -d "$SRC/zstd" ]; then
  # ZSTD_DISABLE_ASM: the C Huffman decoder, instrumented, instead of the assembly loop
  # (still assembled, never called); no threads (kwire has none).
  build_dep zstd "$SRC/zstd/build/cmake" -DCMAKE_C_FLAGS="$CFLAGS -DZSTD_DISABLE_ASM" \
    -DZSTD_BUILD_STATIC=ON -DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_PROGRAMS=OFF \
    -DZSTD_BUILD_TESTS=OFF -DZSTD_MULTITHREAD_SUPPORT=OFF
fi

# The codec and the targets: flags come only from $CFLAGS/$CXXFLAGS (no build-type
# flags, no kwire sanitizer options), the engine from $LIB_FUZZING_ENGINE.
cmake -S "$kwire" -B "$build_dir/kwire-build" -G Ninja \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_PREFIX_PATH="$deps" \
  -DKWIRE_FUZZ=OFF -DKWIRE_SANITIZE=OFF -DKWIRE_TESTS=OFF -DKWIRE_BENCH=OFF -DKWIRE_TOOLS=OFF \
  -DKWIRE_STATIC_DEPS=ON -DKWIRE_CRC32C_BACKEND=boost -DKWIRE_LINKER=default \
  -DKWIRE_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE"
# shellcheck disable=SC2086
cmake --build "$build_dir/kwire-build" -j"$jobs" --target $targets

for t in $targets; do
  cp "$build_dir/kwire-build/fuzz/$t" "$OUT/"
  for ext in dict options; do
    if [ -f "$kwire/fuzz/$t.$ext" ]; then cp "$kwire/fuzz/$t.$ext" "$OUT/"; fi
  done
  # Seeds longer than the target's max_len (<t>.options) are left out and listed.
  "$kwire/fuzz/oss-fuzz-seed-corpus.sh" "$t" "$OUT" "$kwire"
done
# Each target must start in base-runner, which has /out and the C/C++ runtime only.
# shellcheck disable=SC2046,SC2086
"$kwire/fuzz/oss-fuzz-check-needed.sh" $(printf "$OUT/%s " $targets)
echo "oss-fuzz-build: $(wc -w <<<"$targets") targets in $OUT"
