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
# Build trees go to $WORK/kwire-<sanitizer>-<engine>[-<arch>]-<hash of compilers and
# flags>/ (abseil-build, absl-install, kwire-build): a $WORK reused across builds (local
# helper.py runs, tools/oss-fuzz-sim.sh) never mixes objects of two configurations,
# e.g. an UBSan build linking the ASan-built Abseil of an earlier run.
# Output in $OUT, for every fuzz target <t> of fuzz/CMakeLists.txt:
#   <t>  <t>.dict  <t>.options  <t>_seed_corpus.zip (corpus/<t>/ + corpus/regressions/,
#   without the files longer than max_len of <t>.options: fuzz/oss-fuzz-seed-corpus.sh)
set -o pipefail

kwire="${KWIRE_SRC:-$SRC/kwire}"
jobs="${KWIRE_BUILD_JOBS:-$(nproc)}"
targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' "$kwire/fuzz/CMakeLists.txt" | grep -o '[a-z_]*_fuzzer')

# One work folder per sanitizer x engine x architecture x compiler/flags (and Abseil
# source revision): everything that changes the objects.
absl_rev=""
if [ -d "$SRC/abseil-cpp" ]; then
  absl_rev=$(git -C "$SRC/abseil-cpp" rev-parse HEAD 2>/dev/null || echo unknown)
fi
flags_hash=$(printf '%s\n' "$CC" "$CXX" "$CFLAGS" "$CXXFLAGS" "$LIB_FUZZING_ENGINE" "$absl_rev" |
  sha1sum | cut -c1-10)
build_key="${SANITIZER:-nosanitizer}-${FUZZING_ENGINE:-noengine}${ARCHITECTURE:+-$ARCHITECTURE}-$flags_hash"
build_dir="$WORK/kwire-$build_key"
mkdir -p "$build_dir"
echo "oss-fuzz-build: work folder $build_dir"

# Abseil must be compiled with the same C++ library as the targets (OSS-Fuzz links
# libc++): build it from $SRC/abseil-cpp when the image provides it, else use the
# system package (tools/oss-fuzz-sim.sh on Debian: libstdc++ throughout).
prefix_path=""
if [ -d "$SRC/abseil-cpp" ]; then
  if [ ! -f "$build_dir/absl-install/lib/cmake/absl/abslConfig.cmake" ]; then
    cmake -S "$SRC/abseil-cpp" -B "$build_dir/absl-build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20 -DABSL_PROPAGATE_CXX_STD=ON \
      -DABSL_BUILD_TESTING=OFF -DBUILD_TESTING=OFF \
      -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
      -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
      -DCMAKE_INSTALL_PREFIX="$build_dir/absl-install"
    cmake --build "$build_dir/absl-build" -j"$jobs"
    cmake --install "$build_dir/absl-build" >/dev/null
  fi
  prefix_path="$build_dir/absl-install"
fi

# The codec and the targets: flags come only from $CFLAGS/$CXXFLAGS (no build-type
# flags, no kwire sanitizer options), the engine from $LIB_FUZZING_ENGINE.
cmake -S "$kwire" -B "$build_dir/kwire-build" -G Ninja \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_PREFIX_PATH="$prefix_path" \
  -DKWIRE_FUZZ=OFF -DKWIRE_SANITIZE=OFF -DKWIRE_TESTS=OFF -DKWIRE_BENCH=OFF \
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
echo "oss-fuzz-build: $(wc -w <<<"$targets") targets in $OUT"
