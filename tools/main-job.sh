#!/usr/bin/env bash
# kwire main job: install dependencies, build, run the conformance suite, the round
# trips and a short fuzz campaign on the shipped corpus (KWIRE_FUZZ_SECONDS seconds per
# target, default 20, 0 skips it), and print a summary.
# Usage: tools/main-job.sh            (from the project root, as root on Debian 12)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
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
# minimized into corpus/regressions/ (tools/fuzz-campaign.sh).
fuzz_rc=0
if [ "${KWIRE_FUZZ_SECONDS:-20}" != 0 ]; then
  echo
  tools/fuzz-campaign.sh "${KWIRE_FUZZ_SECONDS:-20}" || fuzz_rc=$?
fi
# ---- end of the fuzz section
echo
echo "summary: conformance $([ $conformance_rc -eq 0 ] && echo PASS || echo FAIL)," \
     "round trips $([ $roundtrip_rc -eq 0 ] && echo PASS || echo FAIL);" \
     "reports: build/test/conformance-junit.xml, build/test/conformance.json"
[ $fuzz_rc -eq 0 ] || echo "fuzz campaign: FAIL (see above)"
exit $(( conformance_rc != 0 || roundtrip_rc != 0 || fuzz_rc != 0 ))
