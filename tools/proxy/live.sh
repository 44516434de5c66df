#!/usr/bin/env bash
# kwire proxy against a real Apache Kafka 4.4.0 broker (issue 32 items 1-3): starts the
# broker (tools/kafka-broker/broker.sh), one `kwire proxy` in front of each of its client
# listeners (PLAINTEXT and SASL_PLAINTEXT/SCRAM), runs Kafka's own Java client through
# them (tools/kafka-broker/smoke.sh: topics, produce/consume, transactions, SCRAM,
# delegation tokens, ACLs, share groups), stops the proxies and the broker, and fails
# unless the client succeeded and every frame both ways conformed.
#   tools/proxy/live.sh [--kwire PATH] [--out DIR] [--quirks LIST]
# The frames' JSON lines and summaries stay in DIR (default build/live).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kwire="$root/build/test/tools/kwire/kwire"
out="$root/build/live"
quirks=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --kwire) kwire="${2:?--kwire needs a path}"; shift ;;
    --out) out="${2:?--out needs a folder}"; shift ;;
    --quirks) quirks="${2:?--quirks needs a list}"; shift ;;
    *) echo "live.sh: unexpected argument '$1' (tools/proxy/live.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$kwire" ] || { echo "live.sh: no kwire at $kwire (build it first)" >&2; exit 2; }
broker="$root/tools/kafka-broker/broker.sh"
mkdir -p "$out"
rm -f "$out"/*.jsonl "$out"/*.json "$out"/*.port "$out"/*.log
dir="$(mktemp -u "${TMPDIR:-/tmp}/kwire-live.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  "$broker" stop --dir "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$broker" start --dir "$dir" > "$out/broker.env" || { echo "live.sh: the broker did not start" >&2; exit 1; }
# shellcheck source=/dev/null
. "$out/broker.env"

quirk_args=()
[ -z "$quirks" ] || quirk_args=(--quirks "$quirks")
for listener in plaintext sasl; do
  case $listener in
    plaintext) upstream="$KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT" ;;
    sasl) upstream="$KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT" ;;
  esac
  "$kwire" proxy --broker "$upstream" --port-file "$out/$listener.port" \
    --frames --log "$out/$listener.jsonl" --summary-json "$out/$listener-summary.json" \
    "${quirk_args[@]}" 2> "$out/$listener.log" &
  pids+=($!)
done
# The port files appear once each proxy listens (written whole, then renamed).
for listener in plaintext sasl; do
  for _ in $(seq 1 600); do
    [ -f "$out/$listener.port" ] && break
    kill -0 "${pids[0]}" 2>/dev/null || break
    sleep 0.05
  done
  [ -f "$out/$listener.port" ] || { echo "live.sh: kwire proxy ($listener) did not listen" >&2; cat "$out/$listener.log" >&2; exit 1; }
done

KWIRE_SMOKE_VIA_PLAINTEXT="127.0.0.1:$(cat "$out/plaintext.port")" \
KWIRE_SMOKE_VIA_SASL_PLAINTEXT="127.0.0.1:$(cat "$out/sasl.port")" \
  "$root/tools/kafka-broker/smoke.sh" --dir "$dir"
smoke=$?

status=0
[ "$smoke" = 0 ] || { echo "live.sh: the Java client failed through the proxy (exit $smoke)" >&2; status=1; }
i=0
for listener in plaintext sasl; do
  kill -TERM "${pids[$i]}" 2>/dev/null
  wait "${pids[$i]}"
  rc=$?
  echo "== kwire proxy ($listener): exit $rc"
  cat "$out/$listener.log"
  [ "$rc" = 0 ] || status=1
  i=$((i + 1))
done
pids=()
python3 - "$out" <<'PY'
import json, sys, os
seen = {}
for name in ("plaintext", "sasl"):
    with open(os.path.join(sys.argv[1], f"{name}-summary.json")) as f:
        for a in json.load(f)["apis"]:
            if a["api_key"] >= 0:
                seen.setdefault((a["api_key"], a["api"]), set()).add(a["version"])
print(f"live: {len(seen)} API keys seen: " + ", ".join(
    f"{k} {n} v{'/'.join(map(str, sorted(v)))}" for (k, n), v in sorted(seen.items())))
PY
exit $status
