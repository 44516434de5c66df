#!/usr/bin/env bash
# kwire main job: install dependencies, build, run the conformance suite, the round
# trips and a short fuzz campaign on the shipped corpus (KWIRE_FUZZ_SECONDS seconds per
# target, default 20, 0 skips it), and print a summary.
# Build steps print ninja's progress ([done/total] lines; the fuzz build's full log
# goes to its work folder).
# Usage: tools/main-job.sh [-h|--help]   (from any directory, as root on Debian 12)
#   Environment: KWIRE_FUZZ_SECONDS (non-negative integer, default 20; 0 skips fuzzing)
set -euo pipefail

usage() {
  echo "Usage: tools/main-job.sh [-h|--help]"
  echo "Installs the Debian packages, builds the test preset, runs the conformance suite,"
  echo "the round trips and a fuzz campaign of KWIRE_FUZZ_SECONDS seconds per target"
  echo "(default 20, 0 skips it), then prints a summary. Exit 0 when all pass, 1 otherwise."
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") ;;
  *) echo "main-job: unexpected argument '$1'" >&2; usage >&2; exit 2 ;;
esac
fuzz_seconds="${KWIRE_FUZZ_SECONDS:-20}"
if ! [[ "$fuzz_seconds" =~ ^[0-9]+$ ]]; then
  echo "main-job: KWIRE_FUZZ_SECONDS must be a non-negative integer, got '$fuzz_seconds'" >&2
  exit 2
fi
fuzz_seconds=$((10#$fuzz_seconds))
cd "$(dirname "$0")/.."
tools/install-deps.sh
echo
echo "== build: test preset (g++, ASan + UBSan), targets kwire and codec_test =="
cmake --preset test >/dev/null
cmake --build --preset test --target kwire codec_test
echo
echo "== conformance: documented minimal frames and seed trees (conformance/vectors) =="
# Same checks as conformance_test; also writes JUnit and JSON reports for CI.
conformance_rc=0
./build/test/tools/kwire/kwire conformance conformance/vectors \
  --junit build/test/conformance-junit.xml --json build/test/conformance.json ||
  conformance_rc=$?
echo
echo "== round trip: every API x version x direction, minimal and randomized =="
roundtrip_rc=0
./build/test/codec/codec_test --gtest_brief=1 || roundtrip_rc=$?
# ---- fuzz campaign (issue 6): every fuzz target for KWIRE_FUZZ_SECONDS (default 20)
# on a copy of the shipped corpus; KWIRE_FUZZ_SECONDS=0 skips it. Findings are
# minimized into the campaign's work folder, build/fuzz-campaign/<timestamp>/findings/
# (tools/fuzz-campaign.sh); corpus/ is never modified.
fuzz_rc=0
if [ "$fuzz_seconds" -gt 0 ]; then
  echo
  tools/fuzz-campaign.sh "$fuzz_seconds" || fuzz_rc=$?
fi
# ---- end of the fuzz section
echo
echo "summary: conformance $([ $conformance_rc -eq 0 ] && echo PASS || echo FAIL)," \
     "round trips $([ $roundtrip_rc -eq 0 ] && echo PASS || echo FAIL);" \
     "reports: build/test/conformance-junit.xml, build/test/conformance.json"
[ $fuzz_rc -eq 0 ] || echo "fuzz campaign: FAIL (see above)"
exit $(( conformance_rc != 0 || roundtrip_rc != 0 || fuzz_rc != 0 ))
