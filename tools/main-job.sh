#!/usr/bin/env bash
# kwire main job: install dependencies, build, run the conformance suite and print a
# summary. (Issue 6 adds the short fuzz campaign on the shipped corpus.)
# Usage: tools/main-job.sh            (from the project root, as root on Debian 12)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset test >/dev/null
cmake --build --preset test --target conformance_test codec_test
echo
echo "== conformance: documented minimal frames (conformance/vectors) =="
./build/test/conformance/conformance_test --gtest_brief=1
echo
echo "== round trip: every API x version x direction, minimal and randomized =="
./build/test/codec/codec_test --gtest_brief=1
echo
current=$(grep -vc '^#' conformance/vectors/minimal.txt)
removed=$(grep -vc '^#' conformance/vectors/minimal-removed.txt)
echo "summary: ${current} current + ${removed} removed-version frames byte-exact; see above for failures"
