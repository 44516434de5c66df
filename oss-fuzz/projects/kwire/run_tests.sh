#!/bin/bash -eu
# Copyright 2026 The kwire Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
################################################################################
# OSS-Fuzz run_tests.sh for kwire: runs after build.sh in the same container (no
# network), exit status 0 when every test passes. It replays every committed input of
# corpus/ (each target's seeds and corpus/regressions/) through every fuzz target in
# $OUT, as kwire's ctest does in every build (<target>.replay), with the limits
# ClusterFuzz fuzzes with. In an AFL++ build ($FUZZING_ENGINE=afl, set by the image) the
# targets link AFL++'s driver instead, which takes no libFuzzer flags and skips a
# directory argument without a word: there every non-empty file is named on the command
# line and each must report "Execution successful.". It writes only below $WORK (or a temporary directory), never
# into the kwire checkout, so `git diff` is unchanged afterwards.
#
# The GoogleTest suites are not run here: the image builds with libc++ and has no
# GoogleTest built for it; they run in kwire's own CI (.ci/run, .github/workflows/).
#
# Usage: run_tests.sh [-h|--help]
#   Environment: SRC OUT (as in the OSS-Fuzz image), WORK (optional scratch space),
#   KWIRE_SRC (kwire checkout, default $SRC/kwire).
# Outside docker, after tools/oss-fuzz-sim.sh:
#   SRC=build/oss-fuzz-sim/src OUT=build/oss-fuzz-sim/address/out oss-fuzz/projects/kwire/run_tests.sh
set -o pipefail

usage() {
  cat <<'USAGE'
Usage: run_tests.sh [-h|--help]
Replays every file of $SRC/kwire/corpus through every fuzz target in $OUT (libFuzzer
-runs=0; with FUZZING_ENGINE=afl, AFL++'s driver run on the files); exit 0 when all
pass, 1 when one fails, 2 on bad usage.
Environment: SRC, OUT (set by the OSS-Fuzz image), FUZZING_ENGINE (libfuzzer by
default; afl), WORK (scratch, default /tmp), KWIRE_SRC (kwire checkout, default $SRC/kwire).
Outside docker, after tools/oss-fuzz-sim.sh:
  SRC=build/oss-fuzz-sim/src OUT=build/oss-fuzz-sim/address/out oss-fuzz/projects/kwire/run_tests.sh
USAGE
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") ;;
  *) echo "run_tests.sh: unexpected argument '$1'" >&2; usage >&2; exit 2 ;;
esac
for v in SRC OUT; do
  [ -n "${!v:-}" ] || { echo "run_tests.sh: $v is not set (the OSS-Fuzz image sets it)" >&2; exit 2; }
done
kwire="${KWIRE_SRC:-$SRC/kwire}"
[ -f "$kwire/fuzz/CMakeLists.txt" ] || { echo "run_tests.sh: no kwire checkout at $kwire" >&2; exit 2; }
targets=$(sed -n '/^set(KWIRE_FUZZERS/,/^)/p' "$kwire/fuzz/CMakeLists.txt" | grep -o '[a-z_]*_fuzzer')
scratch=$(mktemp -d "${WORK:-/tmp}/kwire-run-tests.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

failed=0
for t in $targets; do
  if [ ! -x "$OUT/$t" ]; then
    echo "FAIL $t: no executable $OUT/$t (run build.sh first)"; failed=$((failed + 1)); continue
  fi
  mkdir -p "$scratch/$t"
  if [ "${FUZZING_ENGINE:-libfuzzer}" = afl ]; then
    # AFL++'s driver: each file named runs once ("Reading N bytes from ...", then
    # "Execution successful."); empty files are skipped, so they are not counted.
    files=$(find "$kwire/corpus" -type f -size +0 | wc -l)
    if find "$kwire/corpus" -type f -size +0 -print0 | xargs -0 "$OUT/$t" >"$scratch/$t.log" 2>&1 &&
       [ "$(grep -c '^Execution successful' "$scratch/$t.log")" -eq "$files" ]; then
      echo "ok   $t: $files files replayed (AFL++ driver)"
    else
      echo "FAIL $t: replay of $kwire/corpus failed ($(grep -c '^Execution successful' "$scratch/$t.log") of $files files ran); last lines:"
      tail -20 "$scratch/$t.log"
      failed=$((failed + 1))
    fi
    continue
  fi
  # -runs=0: execute every file below the directory once, no fuzzing, nothing written
  # to it; a crash input would go to -artifact_prefix.
  if "$OUT/$t" -runs=0 -rss_limit_mb=2560 -timeout=25 -artifact_prefix="$scratch/$t/" \
       "$kwire/corpus" >"$scratch/$t.log" 2>&1; then
    echo "ok   $t: $(find "$kwire/corpus" -type f | wc -l) files replayed"
  else
    echo "FAIL $t: replay of $kwire/corpus failed; last lines:"
    tail -20 "$scratch/$t.log"
    failed=$((failed + 1))
  fi
done
if [ $failed -gt 0 ]; then
  echo "run_tests.sh: $failed target(s) failed"
  exit 1
fi
echo "run_tests.sh: every corpus input passes every target"
