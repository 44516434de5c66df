#!/usr/bin/env bash
# kwire proxy against a real Apache Kafka 4.4.0 broker with real clients (issue 32 items 1-3):
# starts the broker (tools/kafka-broker/broker.sh), then for each client one `kwire proxy`
# in front of each of the broker's client listeners (PLAINTEXT and SASL_PLAINTEXT/SCRAM),
# runs the client through them (tools/kafka-broker/clients.sh: Kafka's Java client, librdkafka
# via kcat, franz-go, kafka-python), stops the proxies, and at the end stops the broker and
# prints the API key x version table (per client and in total). It fails unless every client
# did every step it should and every frame both ways conformed (the proxies run with
# --fail-fast: the first frame that does not conform stops them, and the client with them).
#   tools/proxy/live.sh [--kwire PATH] [--out DIR] [--quirks LIST] [--clients LIST]
#                       [--capture FILE] [--frames]
# --clients: a comma-separated list of java, kcat, franz-go, kafka-python, smoke (the smoke
# check, tools/kafka-broker/smoke.sh); default java,kcat,franz-go,kafka-python. The frames'
# JSON lines and summaries stay in DIR/<client>/ (default DIR: build/live).
# --frames: the proxies' logs also carry each frame's bytes (for tools/proxy/live_vectors.py).
# --capture FILE: also records the loopback traffic with tcpdump (Debian tcpdump) into FILE
# (pcap; the proxies then log each frame's bytes, --frames) and afterwards checks it with
# `kwire pcap` (tools/pcap/live_compare.py): its frames and verdicts must be the proxies',
# on both legs; with tshark installed, also lists where Wireshark's Kafka dissector reads
# them differently (not a failure).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kwire="$root/build/test/tools/kwire/kwire"
out="$root/build/live"
quirks=""
clients="java,kcat,franz-go,kafka-python"
capture=""
frames=0
tcpdump_pid=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    --kwire) kwire="${2:?--kwire needs a path}"; shift ;;
    --out) out="${2:?--out needs a folder}"; shift ;;
    --quirks) quirks="${2:?--quirks needs a list}"; shift ;;
    --clients) clients="${2:?--clients needs a list}"; shift ;;
    --capture) capture="${2:?--capture needs a file}"; shift ;;
    --frames) frames=1 ;;
    *) echo "live.sh: unexpected argument '$1' (tools/proxy/live.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$kwire" ] || { echo "live.sh: no kwire at $kwire (build it first)" >&2; exit 2; }
if [ -n "$capture" ]; then
  command -v tcpdump >/dev/null || { echo "live.sh: --capture needs tcpdump (tools/install-deps.sh)" >&2; exit 2; }
  if "$kwire" pcap /dev/null 2>&1 | grep -q "not in this build"; then
    echo "live.sh: --capture needs kwire pcap, not in $kwire (libpcap-dev, libtins-dev)" >&2; exit 2
  fi
fi
IFS=, read -r -a picked <<<"$clients"
[ ${#picked[@]} -gt 0 ] || { echo "live.sh: --clients is empty" >&2; exit 2; }
prepare=()
for c in "${picked[@]}"; do
  case "$c" in
    java|kcat|franz-go|kafka-python) prepare+=("$c") ;;
    smoke) ;;
    *) echo "live.sh: unknown client '$c' (java, kcat, franz-go, kafka-python, smoke)" >&2; exit 2 ;;
  esac
done
broker="$root/tools/kafka-broker/broker.sh"
t_start=$(date +%s.%N)
mkdir -p "$out"
rm -rf "${out:?}"/*.jsonl "$out"/*.json "$out"/*.port "$out"/*.log "$out"/broker.env
for c in "${picked[@]}"; do rm -rf "${out:?}/$c"; done

# Build or install the clients first (the first time: Maven, the Go module proxy, PyPI).
if [ ${#prepare[@]} -gt 0 ]; then
  "$root/tools/kafka-broker/clients.sh" --prepare "${prepare[@]}" > "$out/prepare.log" 2>&1 ||
    { echo "live.sh: preparing the clients failed:" >&2; cat "$out/prepare.log" >&2; exit 1; }
fi

dir="$(mktemp -u "${TMPDIR:-/tmp}/kwire-live.XXXXXX")"
pids=()
stop_proxies() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
}
cleanup() {
  stop_proxies
  [ -z "$tcpdump_pid" ] || kill -INT "$tcpdump_pid" 2>/dev/null
  "$broker" stop --dir "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }
t0=$(date +%s.%N)
"$broker" start --dir "$dir" > "$out/broker.env" 2> "$out/broker-start.log" ||
  { cat "$out/broker-start.log" >&2; echo "live.sh: the broker did not start" >&2; exit 1; }
echo "live: the broker started in $(since "$t0") s ($(tail -n 1 "$out/broker-start.log" | sed 's/^broker.sh: //'))"
# shellcheck source=/dev/null
. "$out/broker.env"

if [ -n "$capture" ]; then
  # All TCP on loopback: client <-> proxy, proxy <-> broker, the broker's own connections.
  # -Z root: tcpdump writes FILE as root; -U: each packet written at once.
  tcpdump -i lo -n -s 0 -B 32768 -U --immediate-mode -Z root -w "$capture" tcp 2> "$out/tcpdump.log" &
  tcpdump_pid=$!
  for _ in $(seq 1 600); do
    grep -q "listening on" "$out/tcpdump.log" 2>/dev/null && break
    kill -0 "$tcpdump_pid" 2>/dev/null || break
    sleep 0.05
  done
  grep -q "listening on" "$out/tcpdump.log" || { echo "live.sh: tcpdump did not start" >&2; cat "$out/tcpdump.log" >&2; exit 1; }
fi

quirk_args=()
[ -z "$quirks" ] || quirk_args=(--quirks "$quirks")
frames_args=()
# The bytes of every frame in the proxies' logs: for tools/pcap/live_compare.py (--capture)
# and tools/proxy/live_vectors.py (--frames).
[ -z "$capture" ] && [ "$frames" = 0 ] || frames_args=(--frames)
status=0
declare -A took
for c in "${picked[@]}"; do
  cdir="$out/$c"
  mkdir -p "$cdir"
  pids=()
  for listener in plaintext sasl; do
    case $listener in
      plaintext) upstream="$KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT" ;;
      sasl) upstream="$KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT" ;;
    esac
    "$kwire" proxy --broker "$upstream" --fail-fast --port-file "$cdir/$listener.port" \
      --log "$cdir/$listener.jsonl" --summary-json "$cdir/$listener-summary.json" \
      "${quirk_args[@]}" "${frames_args[@]}" 2> "$cdir/$listener.log" &
    pids+=($!)
  done
  # The port files appear once each proxy listens (written whole, then renamed).
  i=0
  for listener in plaintext sasl; do
    for _ in $(seq 1 600); do
      [ -f "$cdir/$listener.port" ] && break
      kill -0 "${pids[$i]}" 2>/dev/null || break
      sleep 0.05
    done
    [ -f "$cdir/$listener.port" ] || { echo "live.sh: kwire proxy ($listener) did not listen" >&2; cat "$cdir/$listener.log" >&2; exit 1; }
    i=$((i + 1))
  done

  echo "== $c through kwire proxy (PLAINTEXT 127.0.0.1:$(cat "$cdir/plaintext.port"), SASL_PLAINTEXT 127.0.0.1:$(cat "$cdir/sasl.port"))"
  t0=$(date +%s.%N)
  via_plain="127.0.0.1:$(cat "$cdir/plaintext.port")"
  via_sasl="127.0.0.1:$(cat "$cdir/sasl.port")"
  if [ "$c" = smoke ]; then
    KWIRE_SMOKE_VIA_PLAINTEXT="$via_plain" KWIRE_SMOKE_VIA_SASL_PLAINTEXT="$via_sasl" \
      "$root/tools/kafka-broker/smoke.sh" --dir "$dir"
  else
    KWIRE_CLIENTS_VIA_PLAINTEXT="$via_plain" KWIRE_CLIENTS_VIA_SASL_PLAINTEXT="$via_sasl" \
      "$root/tools/kafka-broker/clients.sh" --dir "$dir" "$c" 2> "$cdir/client-stderr.log"
  fi
  rc=$?
  took[$c]="$(since "$t0")"
  [ "$rc" = 0 ] || { echo "live.sh: $c failed through the proxy (exit $rc; its stderr: $cdir/client-stderr.log)" >&2; status=1; }

  i=0
  for listener in plaintext sasl; do
    kill -TERM "${pids[$i]}" 2>/dev/null
    wait "${pids[$i]}"
    prc=$?
    echo "-- kwire proxy ($c, $listener): exit $prc, $(tail -n 1 "$cdir/$listener.log")"
    [ "$prc" = 0 ] || { status=1; cat "$cdir/$listener.log"; }
    i=$((i + 1))
  done
  pids=()
done

if [ -n "$capture" ]; then
  # tcpdump reads what the kernel queued at its own pace, and what it has not read when
  # stopped is lost: a marker goes last (a refused connection to a port nobody listens on),
  # and tcpdump is stopped once the marker is in FILE (written packet by packet, -U).
  marker=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -c 'import socket, sys; socket.socket().connect_ex(("127.0.0.1", int(sys.argv[1])))' "$marker"
  for _ in $(seq 1 1200); do
    tcpdump -r "$capture" -n -c 1 "tcp port $marker" 2>/dev/null | grep -q . && break
    sleep 0.1
  done
  kill -INT "$tcpdump_pid" 2>/dev/null
  wait "$tcpdump_pid"
  tcpdump_pid=""
  echo "== tcpdump: $(grep -E 'captured|dropped' "$out/tcpdump.log" | paste -sd, -)"
  grep -q "^0 packets dropped by kernel" "$out/tcpdump.log" ||
    echo "live.sh: tcpdump dropped packets: kwire pcap will see gaps" >&2
  python3 "$root/tools/pcap/live_compare.py" --kwire "$kwire" --capture "$capture" --out "$out" \
    --broker-ports "${KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT##*:},${KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT##*:}" \
    --tshark || status=1
fi

t0=$(date +%s.%N)
"$broker" stop --dir "$dir" >/dev/null 2>&1 || true
trap - EXIT
echo "live: the broker stopped in $(since "$t0") s"

timings=""
for c in "${picked[@]}"; do timings="$timings $c=${took[$c]}"; done
python3 - "$out" "$timings" "${picked[@]}" <<'PY'
import json, os, sys
out, timings, clients = sys.argv[1], sys.argv[2], sys.argv[3:]
seen = {}     # (key, name) -> {client: set(versions)}
frames = bad = 0
for c in clients:
    for listener in ("plaintext", "sasl"):
        path = os.path.join(out, c, f"{listener}-summary.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            s = json.load(f)
        frames += s["frames"]
        bad += s["failures"]
        for a in s["apis"]:
            if a["api_key"] >= 0:
                seen.setdefault((a["api_key"], a["api"]), {}).setdefault(c, set()).add(a["version"])
def vs(v):
    return "v" + "/".join(map(str, sorted(v))) if v else "-"
width = {c: max(len(c), *(len(vs(p.get(c))) for p in seen.values())) if seen else len(c) for c in clients}
head = f"{'key':>3}  {'API':<38}" + "".join(f"  {c:<{width[c]}}" for c in clients) + "  total"
print(head)
print("-" * len(head))
for (k, n), per in sorted(seen.items()):
    total = set().union(*per.values())
    print(f"{k:>3}  {n:<38}" + "".join(f"  {vs(per.get(c)):<{width[c]}}" for c in clients) + f"  {vs(total)}")
print("-" * len(head))
print(f"{'':>3}  {'API keys':<38}" + "".join(
    f"  {sum(1 for p in seen.values() if c in p):<{width[c]}}" for c in clients) + f"  {len(seen)}")
pairs = sum(len(set().union(*p.values())) for p in seen.values())
print(f"live: {len(seen)} API keys, {pairs} key x version pairs, {frames} frames, {bad} not conforming;"
      f" client seconds:{timings}")
PY
echo "live: $(since "$t_start") s in all"
exit $status
