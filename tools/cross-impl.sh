#!/usr/bin/env bash
# The cross-implementation legs: other Kafka protocol implementations put through kwire's
# conformance vectors over the testee protocol (conformance/README.md, "Testing another
# implementation"), each with its own expected failures (conformance/testees/<name>/).
# Separate from the README's test command, which needs Debian packages only: this one
# installs what the peers need (Debian packages, and npm packages at the versions pinned
# in each testee's package-lock.json), then runs every testee and prints a table of what
# ran and what passed. .ci/run runs it after the test command.
#
# Usage: tools/cross-impl.sh [-h|--help] [--install-only] [--kwire PATH] [testee...]
#   testees   default: all of apache-kafka kafka-python kafka-python-latest sarama
#             sarama-latest franz-go rust-kafka-protocol kafkajs platformatic-kafka
#   --kwire   the kwire binary whose runner drives the testees (default
#             build/test/tools/kwire/kwire, built by `cmake --workflow --preset test`)
#   --install-only  install what the peers need, run nothing
# Output: build/cross-impl/<testee>.{json,xml} (the runner's JSON and JUnit reports) and
# <testee>.log. Exit 0 when every testee's failures are exactly its listed ones, 1 when
# one is not, 2 on a usage or install error.
set -euo pipefail
cd "$(dirname "$0")/.."

all_testees=(apache-kafka kafka-python kafka-python-latest sarama sarama-latest franz-go
             rust-kafka-protocol kafkajs platformatic-kafka)
usage() {
  echo "Usage: tools/cross-impl.sh [-h|--help] [--install-only] [--kwire PATH] [testee...]"
  echo "Installs what the other implementations need (Debian packages; npm packages pinned by"
  echo "each testee's package-lock.json; Maven artifacts pinned by apache-kafka's pom.xml), then"
  echo "runs each testee over conformance/vectors with"
  echo "its expected failures and prints a table. Testees: ${all_testees[*]}"
  echo "  --kwire PATH    the kwire whose runner drives them (default build/test/tools/kwire/kwire)"
  echo "  --install-only  install, run nothing"
  echo "Reports: build/cross-impl/<testee>.{json,xml,log}. Exit 0 all as expected, 1 not, 2 usage."
}
kwire=build/test/tools/kwire/kwire
install_only=0
testees=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --install-only) install_only=1 ;;
    --kwire) [ $# -ge 2 ] || { echo "cross-impl: --kwire needs a path" >&2; exit 2; }
             kwire="$2"; shift ;;
    -*) echo "cross-impl: unknown option '$1' (tools/cross-impl.sh --help)" >&2; exit 2 ;;
    *) if [[ " ${all_testees[*]} " != *" $1 "* ]]; then
         echo "cross-impl: unknown testee '$1'; known: ${all_testees[*]}" >&2; exit 2
       fi
       testees+=("$1") ;;
  esac
  shift
done
[ ${#testees[@]} -gt 0 ] || testees=("${all_testees[@]}")

# ---- install (idempotent)
# Debian: kafka-python 2.0.2 (python3-kafka) is in tools/install-deps.sh already; sarama
# 1.22.1 and Go come with --peers; Node.js and npm for the two JavaScript testees; a JDK
# (17+) and Maven for Apache Kafka's own classes (kafka-clients, pinned in its pom.xml,
# from Maven Central on the first build).
tools/install-deps.sh --peers
missing=()
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || missing+=(maven)
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)  # kafka-python-latest
# The live leg's clients (tools/proxy/live.sh): librdkafka through Debian's kcat.
command -v kcat >/dev/null || missing+=(kcat)
if [ ${#missing[@]} -gt 0 ]; then
  echo "cross-impl: installing ${missing[*]} (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The newest Go and Rust peers (franz-go kmsg needs Go >= 1.26, the kafka-protocol crate's
# lock Rust >= 1.89): the machine's Go (/usr/local/go, or one that fetches its toolchain
# from the module proxy) and rustup's cargo, not Debian's older ones; their modules and
# crates come pinned (go.sum, Cargo.lock) from the Go module proxy and crates.io.
[ -x /usr/local/go/bin/go ] && export PATH="/usr/local/go/bin:$PATH"
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
for tool in go cargo; do
  command -v $tool >/dev/null ||
    echo "cross-impl: warning: no $tool on PATH: the testees that need it will fail to build" >&2
done
for t in kafkajs platformatic-kafka; do
  dir=conformance/testees/$t
  # npm ci installs exactly package-lock.json; skipped when node_modules is newer than it.
  if [ ! "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    echo "cross-impl: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
[ "$install_only" = 0 ] || { echo "cross-impl: installed"; exit 0; }

if [ ! -x "$kwire" ]; then
  echo "cross-impl: no kwire at $kwire: build it first (cmake --workflow --preset test)," \
       "or name one with --kwire" >&2
  exit 2
fi
out=build/cross-impl
mkdir -p "$out"

testee_command() {
  case "$1" in
    apache-kafka) echo "conformance/testees/apache-kafka/run.sh" ;;
    kafka-python) echo "python3 conformance/testees/kafka-python/testee.py" ;;
    sarama) echo "conformance/testees/sarama/run.sh" ;;
    kafka-python-latest|sarama-latest|franz-go|rust-kafka-protocol)
      echo "conformance/testees/$1/run.sh" ;;
    kafkajs) echo "node conformance/testees/kafkajs/testee.js" ;;
    platformatic-kafka) echo "node conformance/testees/platformatic-kafka/testee.mjs" ;;
  esac
}

rows=()
failed=0
for t in "${testees[@]}"; do
  # A testee's first start builds it (Go ~10 s to ~1 min, Maven ~10 s, cargo ~2 min, a
  # Python venv ~10 s; longer with the first download), before the runner waits for the
  # hello. A build that fails is that testee's failure.
  case "$t" in
    sarama|apache-kafka|kafka-python-latest|sarama-latest|franz-go|rust-kafka-protocol)
      if ! conformance/testees/$t/run.sh --build-only >"$out/$t-build.log" 2>&1; then
        tail -20 "$out/$t-build.log"
        rows+=("$(printf '%-20s %-28s %5ss  %-14s %s' "$t" "?" 0 "FAIL (build)" "$out/$t-build.log")")
        failed=$((failed + 1))
        continue
      fi ;;
  esac
  if [ "$t" = apache-kafka ]; then
    # The java vector set is Kafka's writing (issue 30 item 5): the committed file must be
    # what this release writes again (seeded, so byte for byte).
    if ! conformance/testees/apache-kafka/run.sh --generate 2>"$out/java-generate.log" |
         cmp -s - conformance/vectors/java.jsonl; then
      echo "cross-impl: conformance/vectors/java.jsonl differs from what" \
           "conformance/testees/apache-kafka/run.sh --generate writes ($out/java-generate.log)" >&2
      failed=$((failed + 1))
    fi
  fi
  start=$SECONDS
  rc=0
  "$kwire" conformance conformance/vectors --testee "$(testee_command "$t")" \
    --expected-failures "conformance/testees/$t/expected_failures.txt" \
    --json "$out/$t.json" --junit "$out/$t.xml" >"$out/$t.log" 2>&1 || rc=$?
  secs=$((SECONDS - start))
  # The runner's closing "total" row: vectors, passed, other-err, failed, unsupported ...
  total=$(grep -E '^total ' "$out/$t.log" | tail -1 | tr -s ' ')
  # "kwire conformance: testee `CMD`: NAME VERSION (operations)"
  hello=$(head -1 "$out/$t.log" | sed -n 's/^kwire conformance: testee `[^`]*`: \(.*\) (.*$/\1/p')
  status=PASS
  if [ "$t" = apache-kafka ] && [ "$rc" -eq 0 ]; then
    # Issue 30's goal: kwire --quirks java gives Java's verdict and value on every vector,
    # but for the differences listed, each explained in FAILURES.md.
    python3 conformance/testees/apache-kafka/compare.py --kwire "$kwire" \
      --expected conformance/testees/apache-kafka/compare_expected.txt \
      --json "$out/apache-kafka-compare.json" >"$out/apache-kafka-compare.log" 2>&1 || rc=$?
    secs=$((SECONDS - start))
    [ "$rc" -eq 0 ] || tail -20 "$out/apache-kafka-compare.log"
  fi
  if [ "$rc" -ne 0 ]; then status="FAIL (exit $rc)"; failed=$((failed + 1)); tail -20 "$out/$t.log"; fi
  rows+=("$(printf '%-20s %-28s %5ss  %-14s %s' "$t" "${hello:-?}" "$secs" "$status" "${total:-no total row}")")
done

echo
echo "cross-implementation legs (runner: $kwire; reports in $out/):"
printf '%-20s %-28s %6s  %-14s %s\n' testee implementation time status \
  "the runner's total row: vectors passed other-err failed unsupported expected unexpected not-run"
for r in "${rows[@]}"; do echo "$r"; done
echo "cross-impl: $(( ${#testees[@]} - failed )) passed, $failed failed"
exit $(( failed > 0 ))
