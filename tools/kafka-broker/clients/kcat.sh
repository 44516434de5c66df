#!/usr/bin/env bash
# librdkafka through Debian's kcat (apt-get install kcat: kcat 1.7.1 with librdkafka 2.0.2 on
# Debian 12) against a broker of tools/kafka-broker/broker.sh: metadata (-L), produce with
# each codec (idempotent) and in a transaction, consume (partition and balanced group,
# read_committed), offsets by time (-Q), SASL SCRAM-SHA-256/512 and a refused password.
# tools/kafka-broker/clients.sh kcat runs it with broker.env exported. Every step prints
# "ok" or "FAIL"; the exit status is 0 only when every step did what it should.
set -uo pipefail

kcat="${KWIRE_KCAT:-kcat}"
plain="${KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT:?clients.sh exports broker.env}"
sasl="${KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT:?}"
run="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
topic="kwire-kcat-$run"
tx_topic="kwire-kcat-tx-$run"
group="kwire-kcat-group-$run"
work="$(mktemp -d "${TMPDIR:-/tmp}/kwire-kcat.XXXXXX")"
trap 'rm -rf "$work"' EXIT
failures=0 steps=0
echo "clients (kcat): $("$kcat" -V 2>&1 | sed -n 's/^Version \([^ ]*\) .*librdkafka \([^ ]*\) .*/kcat \1, librdkafka \2/p'), PLAINTEXT $plain, SASL_PLAINTEXT $sasl, run $run"

# step NAME COMMAND...: runs COMMAND (a function); its last output line is the detail.
step() {
  local name="$1" t0 rc out
  shift
  steps=$((steps + 1))
  t0=$(date +%s%N)
  out="$("$@" 2>"$work/err")"
  rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ "$rc" = 0 ]; then
    printf 'ok    %-60s %6d ms  %s\n' "$name" "$ms" "$(tail -n 1 <<<"$out")"
  else
    failures=$((failures + 1))
    printf 'FAIL  %-60s %6d ms  %s %s\n' "$name" "$ms" "$(tail -n 1 <<<"$out")" "$(tail -n 3 "$work/err" | tr '\n' ' ')"
  fi
}

common=(-X socket.timeout.ms=20000 -X client.id="kwire-kcat-$run")
scram() {  # MECHANISM: the SASL options for the admin user
  echo -X security.protocol=SASL_PLAINTEXT -X "sasl.mechanisms=$1" \
    -X "sasl.username=$KWIRE_KAFKA_SCRAM_USER" -X "sasl.password=$KWIRE_KAFKA_SCRAM_PASSWORD"
}

metadata() {
  "$kcat" -b "$plain" "${common[@]}" -L -J > "$work/meta.json" || return 1
  python3 - "$work/meta.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert len(m["brokers"]) == 1, m["brokers"]
print(f"{len(m['brokers'])} broker(s), {len(m['topics'])} topic(s), controller {m.get('controllerid')}")
PY
}

# Produce three values with a codec (librdkafka's idempotent producer: InitProducerId).
produce_codec() {
  local codec="$1" i
  for i in 0 1 2; do printf '%s-%s-%s-%0200d\n' "$codec" "$i" "$run" 0; done > "$work/in-$codec"
  "$kcat" -b "$plain" "${common[@]}" -P -t "$topic" -p 0 -K: -z "$codec" \
    -X enable.idempotence=true -X linger.ms=50 -X message.timeout.ms=60000 \
    < <(sed 's/^/k:/' "$work/in-$codec") || return 1
  cat "$work/in-$codec" >> "$work/written"
  echo "3 records, codec $codec"
}

# Every value written must be read back (partition 0 from the start, to its end).
consume_partition() {
  "$kcat" -b "$plain" "${common[@]}" -C -t "$topic" -p 0 -o beginning -e -J -q > "$work/read.json" || return 1
  python3 - "$work/read.json" "$work/written" <<'PY'
import json, sys
got = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
values = {r["payload"] for r in got}
missing = [w for w in open(sys.argv[2]).read().split() if w not in values]
assert not missing, f"{len(missing)} not read"
print(f"{len(got)} records, last offset {got[-1]['offset']}")
PY
}

consume_group() {
  local want
  want="$(wc -l < "$work/written")"
  "$kcat" -b "$plain" "${common[@]}" -G "$group" -X auto.offset.reset=earliest \
    -X heartbeat.interval.ms=500 -c "$want" -q -f '%o\n' "$topic" > "$work/group.txt" || return 1
  [ "$(wc -l < "$work/group.txt")" = "$want" ] || { echo "read $(wc -l < "$work/group.txt") of $want"; return 1; }
  echo "group $group read $want records"
}

query_offsets() {
  # -1: the end, -2: the start, 0: the first record at or after time 0 (each one ListOffsets).
  local want_end ts got out=""
  want_end="$(wc -l < "$work/written")"
  for ts in -1 -2 0; do
    got="$("$kcat" -b "$plain" "${common[@]}" -Q -t "$topic:0:$ts" | sed -n 's/.* offset \(-\{0,1\}[0-9]*\)$/\1/p')" || return 1
    out="$out $ts->$got"
    case "$ts" in
      -1) [ "$got" = "$want_end" ] || { echo "end $got, want $want_end"; return 1; } ;;
      *) [ "$got" = 0 ] || { echo "offset $got for $ts, want 0"; return 1; } ;;
    esac
  done
  echo "time->offset:$out"
}

transaction() {
  # kcat sends all of its input in one transaction (InitProducerId, AddPartitionsToTxn or
  # transaction v2, Produce, EndTxn) and commits it at the end.
  printf 'tx-%s-%d\n' "$run" 1 "$run" 2 | "$kcat" -b "$plain" "${common[@]}" -P -t "$tx_topic" -p 0 \
    -X transactional.id="kwire-kcat-tx-$run" -X message.timeout.ms=60000 || return 1
  "$kcat" -b "$plain" "${common[@]}" -C -t "$tx_topic" -p 0 -o beginning -e -q \
    -X isolation.level=read_committed > "$work/tx.txt" || return 1
  [ "$(grep -c "^tx-$run-" "$work/tx.txt")" = 2 ] || { echo "read: $(cat "$work/tx.txt")"; return 1; }
  echo "committed 2 records, read_committed read them"
}

# librdkafka before 2.6.1 cannot log in with SCRAM to Apache Kafka 4.x: its client-final
# message repeats the client nonce (rdkafka_sasl_scram.c builds "c=biws,r=<cnonce><snonce>"
# where the server's nonce already starts with the client's; RFC 5802 wants the server's
# nonce alone), and Kafka 4.x's ScramSaslServer compares the two with equals ("Invalid client
# nonce in the final client message", answered as invalid credentials); Kafka 3.x accepted
# it. Debian 12's kcat has librdkafka 2.0.2, so this step expects the refusal there (the
# frames are still checked) and a login from librdkafka 2.6.1 or newer.
librdkafka_fixed() {
  local v
  v="$("$kcat" -V 2>&1 | sed -n 's/.*librdkafka \([0-9][0-9.]*\).*/\1/p')"
  [ "$(printf '%s\n2.6.1\n' "$v" | sort -V | head -n 1)" = 2.6.1 ]
}
sasl_roundtrip() {
  local mech="$1"
  if ! librdkafka_fixed; then
    # shellcheck disable=SC2046
    if "$kcat" -b "$sasl" "${common[@]}" $(scram "$mech") -m 3 -L > "$work/sasl.txt" 2>&1; then
      echo "librdkafka $("$kcat" -V 2>&1 | sed -n 's/.*librdkafka \([^ ]*\).*/\1/p') logged in: drop the expected failure"
      return 1
    fi
    grep -q "invalid credentials with SASL mechanism $mech" "$work/sasl.txt" || { tail -n 2 "$work/sasl.txt"; return 1; }
    echo "expected failure: librdkafka < 2.6.1 repeats the client nonce; Kafka 4.x refuses it"
    return 0
  fi
  # shellcheck disable=SC2046
  echo "sasl-$mech-$run" | "$kcat" -b "$sasl" "${common[@]}" $(scram "$mech") -P -t "$topic" -p 0 || return 1
  # shellcheck disable=SC2046
  "$kcat" -b "$sasl" "${common[@]}" $(scram "$mech") -C -t "$topic" -p 0 -o -1 -c 1 -e -q > "$work/sasl.txt" || return 1
  grep -qx "sasl-$mech-$run" "$work/sasl.txt" || { echo "read '$(cat "$work/sasl.txt")'"; return 1; }
  echo "produced and consumed as $KWIRE_KAFKA_SCRAM_USER"
}

sasl_refused() {
  if "$kcat" -b "$sasl" "${common[@]}" -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=SCRAM-SHA-256 \
      -X "sasl.username=$KWIRE_KAFKA_SCRAM_USER2" -X sasl.password=not-the-password \
      -m 3 -L > "$work/bad.txt" 2>&1; then
    echo "a wrong password was accepted"
    return 1
  fi
  grep -qi "authentication" "$work/bad.txt" || { tail -n 2 "$work/bad.txt"; return 1; }
  echo "refused: $(grep -oi "[^:]*authentication[^,]*" "$work/bad.txt" | head -n 1)"
}

step "metadata: -L (ApiVersions, Metadata)" metadata
: > "$work/written"
for codec in none gzip snappy lz4 zstd; do
  step "producer: -z $codec (idempotent)" produce_codec "$codec"
done
step "consumer: partition 0 from the start (Fetch, ListOffsets)" consume_partition
step "consumer: balanced group -G (JoinGroup, SyncGroup, OffsetCommit)" consume_group
step "offsets: -Q end, start, by time (ListOffsets)" query_offsets
step "transactions: one transaction, read_committed" transaction
step "SASL_PLAINTEXT SCRAM-SHA-256 (SaslHandshake, SaslAuthenticate)" sasl_roundtrip SCRAM-SHA-256
step "SASL_PLAINTEXT SCRAM-SHA-512 (SaslHandshake, SaslAuthenticate)" sasl_roundtrip SCRAM-SHA-512
step "SASL_PLAINTEXT: a wrong password is refused" sasl_refused

if [ "$failures" = 0 ]; then
  echo "clients (kcat): all $steps steps did what they should"
  exit 0
fi
echo "clients (kcat): $failures of $steps step(s) FAILED"
exit 1
