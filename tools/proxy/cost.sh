#!/usr/bin/env bash
# What kwire proxy costs (issue 32 item 6): one broker (tools/kafka-broker/broker.sh), and in
# front of it a plain TCP relay (socat, Debian's) and two kwire proxies, one with checking off
# (frames split, correlated, addresses rewritten: the relay kwire is) and one with checking on
# (every frame decoded, records validated, re-encoded and compared). Apache Kafka's own
# classes (tools/kafka-broker/Cost.java) then send, interleaved in rounds, Produce requests of
# 1 MiB batches with each codec (throughput) and small Metadata requests one at a time
# (latency) to the broker directly and through each of the three.
#   tools/proxy/cost.sh [--kwire PATH] [--out DIR] [--rounds N] [--seconds S]
#                       [--codecs LIST] [--check-threads N]
# Prints the tables and the ratios against the plain relay; writes DIR/cost.json (default
# DIR: build/cost) and the proxies' summaries. Issue 32's target: with checking on, at least
# 90% of the plain relay's throughput, and at most 100 us more at p99. Fails when a request
# fails, or when the checking proxy finds a frame that does not conform.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kwire="$root/build/release/tools/kwire/kwire"
out="$root/build/cost"
rounds=3 seconds=3 codecs="none,gzip,snappy,lz4,zstd" check_threads=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    --kwire) kwire="${2:?--kwire needs a path}"; shift ;;
    --out) out="${2:?--out needs a folder}"; shift ;;
    --rounds) rounds="${2:?}"; shift ;;
    --seconds) seconds="${2:?}"; shift ;;
    --codecs) codecs="${2:?}"; shift ;;
    --check-threads) check_threads="${2:?}"; shift ;;
    *) echo "cost.sh: unexpected argument '$1' (tools/proxy/cost.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$kwire" ] || { echo "cost.sh: no kwire at $kwire (cmake --workflow --preset release, or --kwire PATH)" >&2; exit 2; }
command -v socat >/dev/null || { echo "cost.sh: needs socat (apt-get install socat)" >&2; exit 2; }
broker="$root/tools/kafka-broker/broker.sh"
cache="${KWIRE_KAFKA_BROKER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/kafka-broker}"
mkdir -p "$out"
rm -f "$out"/*.port "$out"/*.log "$out"/*.json "$out"/cost.txt

dir="$(mktemp -u "${TMPDIR:-/tmp}/kwire-cost.XXXXXX")"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  "$broker" stop --dir "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
"$broker" start --dir "$dir" > "$out/broker.env" 2> "$out/broker-start.log" ||
  { cat "$out/broker-start.log" >&2; echo "cost.sh: the broker did not start" >&2; exit 1; }
# shellcheck source=/dev/null
. "$out/broker.env"
upstream="$KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT"

# The plain relay: socat on a port the kernel picks (it prints it with -d -d).
socat -d -d TCP-LISTEN:0,bind=127.0.0.1,fork,reuseaddr "TCP:$upstream" 2> "$out/socat.log" &
pids+=($!)
socat_port=""
for _ in $(seq 1 200); do
  socat_port="$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$out/socat.log" | head -n 1)"
  [ -n "$socat_port" ] && break
  sleep 0.05
done
[ -n "$socat_port" ] || { echo "cost.sh: socat did not listen" >&2; cat "$out/socat.log" >&2; exit 1; }

thread_args=()
[ -z "$check_threads" ] || thread_args=(--check-threads "$check_threads")
proxy_pids=()
for check in off on; do
  "$kwire" proxy --broker "$upstream" --check "$check" "${thread_args[@]}" \
    --port-file "$out/proxy-$check.port" --log /dev/null \
    --summary-json "$out/proxy-$check-summary.json" 2> "$out/proxy-$check.log" &
  pids+=($!)
  proxy_pids+=($!)
done
for check in off on; do
  for _ in $(seq 1 200); do [ -f "$out/proxy-$check.port" ] && break; sleep 0.05; done
  [ -f "$out/proxy-$check.port" ] || { echo "cost.sh: kwire proxy --check $check did not listen" >&2; cat "$out/proxy-$check.log" >&2; exit 1; }
done

# Cost.java, compiled once against the broker's class path (kafka-clients, Jackson).
classpath="$(cat "$KWIRE_KAFKA_CLASSPATH_FILE")"
java="${JAVA:-$(ls -d /usr/lib/jvm/java-17*/bin/java 2>/dev/null | head -n 1)}"
java="${java:-java}"
javac="$(dirname "$(readlink -f "$(command -v "$java")")")/javac"
src="$root/tools/kafka-broker/Cost.java"
stamp="$( { cat "$src" "$KWIRE_KAFKA_CLASSPATH_FILE"; echo "$javac"; } | sha256sum | cut -c1-16)"
classes="$cache/cost-$stamp"
if [ ! -f "$classes/Cost.class" ]; then
  rm -rf "$classes.tmp" && mkdir -p "$classes.tmp"
  "$javac" --release 17 -Xlint:all,-processing -d "$classes.tmp" -cp "$classpath" "$src" ||
    { echo "cost.sh: Cost.java does not compile" >&2; exit 1; }
  rm -rf "$classes" && mv "$classes.tmp" "$classes"
fi

targets="direct=$upstream,socat=127.0.0.1:$socat_port"
targets+=",proxy-check-off=127.0.0.1:$(cat "$out/proxy-off.port"),proxy-check-on=127.0.0.1:$(cat "$out/proxy-on.port")"
echo "cost: broker $upstream; $(nproc) cores; kwire $kwire; rounds $rounds x $seconds s"
status=0
"$java" -Xms512m -Xmx2g -cp "$classes:$classpath" Cost --targets "$targets" --bootstrap "$upstream" \
  --codecs "$codecs" --rounds "$rounds" --seconds "$seconds" --json "$out/cost.json" \
  2> "$out/cost-java.log" | tee "$out/cost.txt" || status=1
[ "$status" = 0 ] || { echo "cost.sh: the measurement failed:" >&2; tail -n 20 "$out/cost-java.log" >&2; }

# Stop the proxies and read their verdicts: the checking one must have seen only
# conforming frames.
for p in "${proxy_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
checks=(off on)
for i in 0 1; do
  wait "${proxy_pids[$i]}"
  rc=$?
  if [ "$rc" != 0 ]; then
    echo "cost.sh: kwire proxy --check ${checks[$i]} exited $rc:" >&2
    tail -n 5 "$out/proxy-${checks[$i]}.log" >&2
    status=1
  fi
done
[ "$status" = 0 ] || exit 1

python3 - "$out/cost.json" "$out/proxy-on-summary.json" <<'PY' | tee -a "$out/cost.txt"
import json, sys
c = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
print()
print("against the plain relay (socat): throughput ratio; target >= 0.90 with checking on")
print("%-8s %12s %16s %15s" % ("codec", "direct", "proxy-check-off", "proxy-check-on"))
worst = None
for row in c["produce"]:
    t = row["targets"]
    base = t["socat"]["record_mb_s"]
    r = {k: t[k]["record_mb_s"] / base for k in ("direct", "proxy-check-off", "proxy-check-on")}
    worst = r["proxy-check-on"] if worst is None else min(worst, r["proxy-check-on"])
    print("%-8s %12.2f %16.2f %15.2f" % (row["codec"], r["direct"], r["proxy-check-off"], r["proxy-check-on"]))
lat = c["latency_us"]
print()
print("p99 added to the plain relay's (us); target <= 100 with checking on")
for k in ("proxy-check-off", "proxy-check-on"):
    print("%-16s p50 %+8.1f   p99 %+8.1f" % (k, lat[k]["p50"] - lat["socat"]["p50"], lat[k]["p99"] - lat["socat"]["p99"]))
added = lat["proxy-check-on"]["p99"] - lat["socat"]["p99"]
print()
print("checking proxy: %d frames, %d not conforming" % (s["frames"], s["failures"]))
print("target: throughput %s (worst %.2f), p99 %s (%+.1f us)" % (
    "met" if worst >= 0.9 else "NOT met", worst, "met" if added <= 100 else "NOT met", added))
PY
