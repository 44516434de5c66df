#!/usr/bin/env bash
# The short differential and live-broker runs of issue 33 item 4 (CI's "fuzz smoke" leg):
#  diff    kwire diff with kwire strict, `kwire testee --quirks java` and Apache Kafka's
#          own classes (conformance/testees/apache-kafka/run.sh: kafka-clients 4.4.0) over
#          mutants of every vector of conformance/vectors (--op decode, --seed 1, a fixed
#          --count: the same mutants every run, about a minute), requests and responses in
#          turn; every signature must match a line of diff-expected.txt beside this script
#          (each with its reason), and diff-explain.py checks the findings of the lines that
#          match by verdicts alone, so a new disagreement fails the run.
#  broker  kwire broker-fuzz for --seconds against a fresh Apache Kafka 4.4.0 broker
#          (tools/kafka-broker/broker.sh start/stop, its own folder) with the vectors and
#          corpus/request_frame_fuzzer as seeds (AddRaftVoter and UnregisterBroker left out:
#          they take the broker down or out of the cluster); it must end with no finding outside
#          broker-expected.txt beside this script (Kafka's own bugs, each with its reason).
# Usage: tools/brokerfuzz/ci-smoke.sh [--kwire PATH] [--out DIR] [--only diff|broker]
#                                     [--seconds N] [--count N]
#   --kwire    the kwire binary (default build/test/tools/kwire/kwire)
#   --out      reports: DIR/diff-request/, DIR/diff-response/ and DIR/broker/ (findings,
#              signatures, summary) and their logs DIR/*.log (default build/fuzz-smoke)
#   --seconds  the broker run's length (default 60)
#   --count    the differential run's request mutants (default 25000), 1.5 times as many
#              response mutants: about a minute together on 2 cores
# Needs a JDK 17+ and Maven (Debian openjdk-17-jdk-headless, maven: the cross-implementation
# leg's install step installs them); the first run builds the Java testee and resolves the
# broker's class path from Maven Central. Exit 0 when both runs pass, 1 when one does not,
# 2 on a usage error. The long runs are documented in tools/brokerfuzz/README.md.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/tools/brokerfuzz"
kwire="$root/build/test/tools/kwire/kwire"
out="$root/build/fuzz-smoke"
only=""
seconds=60
count=25000
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --kwire) kwire="${2:?--kwire needs a path}"; shift ;;
    --out) out="${2:?--out needs a folder}"; shift ;;
    --only) only="${2:?--only needs diff or broker}"; shift
            case "$only" in diff|broker) ;; *) echo "ci-smoke: --only takes diff or broker" >&2; exit 2 ;; esac ;;
    --seconds) seconds="${2:?--seconds needs a number}"; shift ;;
    --count) count="${2:?--count needs a number}"; shift ;;
    *) echo "ci-smoke: unexpected argument '$1' (tools/brokerfuzz/ci-smoke.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$seconds" =~ ^[0-9]+$ && "$count" =~ ^[0-9]+$ ]] || { echo "ci-smoke: --seconds and --count take numbers" >&2; exit 2; }
[ -x "$kwire" ] || { echo "ci-smoke: no kwire at $kwire (build it first)" >&2; exit 2; }
case "$kwire" in /*) ;; *) kwire="$PWD/$kwire" ;; esac
for cmd in diff broker-fuzz; do
  if "$kwire" "$cmd" --help 2>&1 | grep -q "not in this build"; then
    echo "ci-smoke: $kwire has no '$cmd' (configure with KWIRE_FUZZERS=ON)" >&2; exit 2
  fi
done
mkdir -p "$out"
rc_diff=skipped rc_broker=skipped

if [ "$only" != broker ]; then
  # Two halves, as conformance/testees/apache-kafka/compare.py compares: requests read as a
  # broker reads them (records validated, faulty Produce partitions refused), responses with
  # records as bytes (--records opaque), as Java's parser leaves them.
  rc_diff=0
  for half in request:$count response:$((count * 3 / 2)); do
    dir_=${half%%:*}; n=${half##*:}
    rec=""; [ "$dir_" = response ] && rec=" --records opaque"
    rm -rf "${out:?}/diff-$dir_"
    echo "ci-smoke: kwire diff, $dir_ frames, kwire strict / kwire --quirks java$rec / Apache Kafka, $n mutants"
    t0=$SECONDS
    "$kwire" diff --testee "$kwire testee" --testee "$kwire testee --quirks java$rec" \
      --testee "$root/conformance/testees/apache-kafka/run.sh" \
      --seeds "$root/conformance/vectors" --direction "$dir_" --op decode --seed 1 --count "$n" \
      --time 600 --minimize 0 --expected "$here/diff-expected.txt" --out "$out/diff-$dir_" \
      >"$out/diff-$dir_.log" 2>&1
    rc=$?
    echo "ci-smoke: diff ($dir_) exit $rc in $((SECONDS - t0)) s ($out/diff-$dir_.log)"
    grep -E '^kwire diff: [0-9]+ mutants in|signatures, [0-9]+ of them unexpected' "$out/diff-$dir_.log"
    if [ "$rc" -ne 0 ]; then
      sed -n '/^unexpected findings:/,$p' "$out/diff-$dir_.log" | head -40
      tail -3 "$out/diff-$dir_.log"
      rc_diff=1
    fi
    # The broad expected classes (M1, J1) match by verdicts: each such finding checked.
    if [ -s "$out/diff-$dir_/findings.jsonl" ]; then
      python3 "$here/diff-explain.py" "$out/diff-$dir_/findings.jsonl" || rc_diff=1
    fi
  done
fi

if [ "$only" != diff ]; then
  rm -rf "${out:?}/broker"
  dir="$(mktemp -u "${TMPDIR:-/tmp}/kwire-fuzz-smoke.XXXXXX")"
  broker="$root/tools/kafka-broker/broker.sh"
  trap '"$broker" stop --dir "$dir" >/dev/null 2>&1 || true' EXIT
  echo "ci-smoke: kwire broker-fuzz against a fresh Apache Kafka 4.4.0 broker, $seconds s"
  t0=$SECONDS
  if ! "$broker" start --dir "$dir" >"$out/broker-start.log" 2>&1; then
    echo "ci-smoke: the broker did not start:" >&2
    tail -20 "$out/broker-start.log" >&2
    rc_broker=1
  else
    # Not sent: AddRaftVoter (one with an empty listener name ends the broker process:
    # tools/kafka-broker/FAILURES.md, KB7) and UnregisterBroker (one naming the broker's own
    # id drops its registration for good, KB6: the rest of the run would fuzz a broker that
    # leads no partition).
    "$kwire" broker-fuzz --broker-env "$dir/broker.env" \
      --seeds "$root/conformance/vectors" --seeds "$root/corpus/request_frame_fuzzer" \
      --time "$seconds" --seed 1 --max-rss 2048 --minimize 20 --minimize-time 60 \
      --exclude-api AddRaftVoter,UnregisterBroker \
      --expected "$here/broker-expected.txt" --out "$out/broker" >"$out/broker.log" 2>&1
    rc_broker=$?
    "$broker" stop --dir "$dir" >/dev/null 2>&1 || true
    echo "ci-smoke: broker-fuzz exit $rc_broker in $((SECONDS - t0)) s ($out/broker.log)"
    grep -E '^kwire broker-fuzz:|requests sent|answers that|closes without|timeouts|ApiVersions checks|broker RSS|finding signatures|^stopped early' "$out/broker.log"
    if [ "$rc_broker" -ne 0 ]; then
      sed -n '/finding signatures/,/^$/p' "$out/broker.log" | head -40
      tail -5 "$out/broker.log"
    fi
  fi
fi

echo "ci-smoke: diff $rc_diff, broker $rc_broker"
[[ "$rc_diff" == 0 || "$rc_diff" == skipped ]] && [[ "$rc_broker" == 0 || "$rc_broker" == skipped ]]
