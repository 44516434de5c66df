#!/usr/bin/env bash
# The smoke check of tools/kafka-broker: Apache Kafka's own Java client (kafka-clients, the
# version broker.sh runs; Smoke.java beside this script, compiled into broker.sh's cache)
# against a broker broker.sh started. Exit status 0 only when every step worked.
#   tools/kafka-broker/smoke.sh [--dir DIR]   # the broker of DIR (default: the one started last)
#   tools/kafka-broker/smoke.sh --start       # start a broker, check it, stop it
# See tools/kafka-broker/README.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/kafka-broker/smoke.sh [--dir DIR | --start] [--keep]
  Checks a broker of tools/kafka-broker/broker.sh with Apache Kafka's Java client: creates
  topics; produces and consumes over PLAINTEXT (a KIP-848 consumer group) and over
  SASL_PLAINTEXT with SCRAM-SHA-256 and SCRAM-SHA-512; refuses a wrong password; commits a
  transaction and reads it read_committed; creates, describes and authenticates with a
  delegation token over SASL (and is refused one over PLAINTEXT); creates a DENY ACL and sees
  it enforced; consumes with a share group (KIP-932) and lists share groups. Prints a line a
  step ("ok" or "FAIL", milliseconds, detail); exit status 0 only when every step worked.
  --dir DIR   the broker of DIR (default: the broker started last)
  --start     start a broker first (broker.sh start) and stop it afterwards
  --keep      with --start: keep the broker's folder (logs) after stopping it
  The client's log: DIR/logs/smoke.log. Environment: as broker.sh (JAVA, MVN,
  KWIRE_KAFKA_BROKER_CACHE), and, to go through a proxy (kwire proxy; tools/proxy/live.sh
  sets them), KWIRE_SMOKE_VIA_PLAINTEXT=HOST:PORT and KWIRE_SMOKE_VIA_SASL_PLAINTEXT=HOST:PORT:
  the client bootstraps from these instead of the broker's listeners.
USAGE
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
broker="$here/broker.sh"
cache="${KWIRE_KAFKA_BROKER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/kafka-broker}"
dir="" start=0 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --dir) dir="${2:?--dir needs a value}"; shift ;;
    --start) start=1 ;;
    --keep) keep=1 ;;
    *) echo "smoke.sh: unexpected argument '$1' (smoke.sh --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$start" = 1 ]; then
  [ -z "$dir" ] || { echo "smoke.sh: --dir and --start exclude each other" >&2; exit 2; }
  dir="$(mktemp -u "${TMPDIR:-/tmp}/kwire-kafka-smoke.XXXXXX")"
  stop_args=(--dir "$dir")
  [ "$keep" = 1 ] && stop_args+=(--keep)
  trap '"$broker" stop "${stop_args[@]}" || true' EXIT
  "$broker" start --dir "$dir" > /dev/null
fi
if [ -z "$dir" ]; then
  current="$cache/current"
  [ -f "$current" ] || { echo "smoke.sh: no broker started (broker.sh start, or smoke.sh --start)" >&2; exit 2; }
  dir="$(cat "$current")"
fi
[ -f "$dir/broker.env" ] || { echo "smoke.sh: no $dir/broker.env" >&2; exit 2; }
set -a
# shellcheck source=/dev/null
. "$dir/broker.env"
# Through a proxy (tools/proxy/live.sh): the client bootstraps from these instead.
KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT="${KWIRE_SMOKE_VIA_PLAINTEXT:-$KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT}"
KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT="${KWIRE_SMOKE_VIA_SASL_PLAINTEXT:-$KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT}"
set +a
"$broker" status --dir "$dir" > /dev/null

# Compile Smoke.java against the broker's class path (kafka-clients is on it), once.
classpath="$(cat "$KWIRE_KAFKA_CLASSPATH_FILE")"
java="${JAVA:-$(ls -d /usr/lib/jvm/java-17*/bin/java 2>/dev/null | head -n 1)}"
java="${java:-java}"
javac="$(dirname "$(readlink -f "$(command -v "$java")")")/javac"
stamp="$( { cat "$here/Smoke.java" "$KWIRE_KAFKA_CLASSPATH_FILE"; echo "$javac"; } | sha256sum | cut -c1-16)"
classes="$cache/smoke-$stamp"
if [ ! -f "$classes/Smoke.class" ]; then
  rm -rf "$classes.tmp"
  mkdir -p "$classes.tmp"
  "$javac" -J-XX:TieredStopAtLevel=1 --release 17 -Xlint:all,-processing -d "$classes.tmp" \
    -cp "$classpath" "$here/Smoke.java"
  for old in "$cache"/smoke-*; do  # this build replaces any older one
    [ "$old" = "$classes.tmp" ] || rm -rf "$old"
  done
  mv "$classes.tmp" "$classes"
fi

# For the record: does the broker advertise KIP-714's telemetry APIs (71, 72)? Only with a
# metrics reporter that implements ClientTelemetry (none here); not a failure either way.
if python3 "$here/apiversions.py" --list "$KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT" | grep -qE '^(71|72) '; then
  echo "smoke: info: GetTelemetrySubscriptions/PushTelemetry (71/72) advertised"
else
  echo "smoke: info: GetTelemetrySubscriptions/PushTelemetry (71/72) not advertised (no ClientTelemetry reporter)"
fi

"$java" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
  -Dkafka.logs.dir="$dir/logs" -Dkwire.log.name=smoke \
  -Dlog4j2.configurationFile="$here/log4j2.yaml" \
  -cp "$classes:$classpath" Smoke
