#!/usr/bin/env bash
# Real Kafka clients against a broker of broker.sh (issue 32 item 3), each pinned and built
# or installed into a cache outside the tree: Apache Kafka's Java client (Clients.java),
# librdkafka through Debian's kcat, franz-go (clients/franz-go) and kafka-python
# (clients/kafka-python). tools/proxy/live.sh runs them through kwire proxy.
#   tools/kafka-broker/clients.sh [--dir DIR] CLIENT...   # java kcat franz-go kafka-python
#   tools/kafka-broker/clients.sh --prepare CLIENT...      # build/install only
# See tools/kafka-broker/README.md ("All clients").
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/kafka-broker/clients.sh [--dir DIR] [--prepare] CLIENT...
  Runs each CLIENT against the broker of DIR (default: the broker started last) and exits
  0 only when every client did every step it should. CLIENTs (or "all"):
    java          Apache Kafka's Java client (kafka-clients of pom.xml): Clients.java
    kcat          librdkafka through Debian's kcat (apt-get install kcat)
    franz-go      github.com/twmb/franz-go kgo + kadm (clients/franz-go, go.mod/go.sum)
    kafka-python  kafka-python from PyPI (clients/kafka-python/requirements.txt, hashes)
  --dir DIR    the broker of DIR
  --prepare    only build or install each client into the cache (no broker needed)
  Through a proxy: KWIRE_CLIENTS_VIA_PLAINTEXT and KWIRE_CLIENTS_VIA_SASL_PLAINTEXT
  (host:port) replace the broker's listeners. Each client's log: DIR/logs/<client>.log
  (the Java client's). Cache: ${XDG_CACHE_HOME:-~/.cache}/kwire/kafka-clients (or
  KWIRE_KAFKA_CLIENTS_CACHE). Go: KWIRE_GO, else go on PATH or /usr/local/go/bin/go
  (>= 1.26). Python: KWIRE_PYTHON, else python3.
USAGE
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
broker="$here/broker.sh"
broker_cache="${KWIRE_KAFKA_BROKER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/kafka-broker}"
cache="${KWIRE_KAFKA_CLIENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/kafka-clients}"
dir="" prepare=0 clients=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --dir) dir="${2:?--dir needs a value}"; shift ;;
    --prepare) prepare=1 ;;
    all) clients+=(java kcat franz-go kafka-python) ;;
    java|kcat|franz-go|kafka-python) clients+=("$1") ;;
    *) echo "clients.sh: unexpected argument '$1' (clients.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#clients[@]} -gt 0 ] || { usage >&2; exit 2; }
mkdir -p "$cache"

# ---- Building or installing each client (once per input; under a lock).
java_bin() {
  local j="${JAVA:-$(ls -d /usr/lib/jvm/java-17*/bin/java 2>/dev/null | head -n 1)}"
  echo "${j:-java}"
}
prepare_java() {  # prints the folder of Clients.class
  local cp java javac stamp classes old
  cp="$("$broker" classpath)"  # resolved once per pom.xml and JDK (broker.sh's cache)
  java="$(java_bin)"
  javac="$(dirname "$(readlink -f "$(command -v "$java")")")/javac"
  stamp="$( { cat "$here/Clients.java"; echo "$cp"; echo "$javac"; } | sha256sum | cut -c1-16)"
  classes="$cache/java-$stamp"
  if [ ! -f "$classes/Clients.class" ]; then
    echo "clients.sh: compiling Clients.java" >&2
    rm -rf "$classes.tmp"
    mkdir -p "$classes.tmp"
    "$javac" -J-XX:TieredStopAtLevel=1 -J-Xmx256m --release 17 -Xlint:all,-processing \
      -d "$classes.tmp" -cp "$cp" "$here/Clients.java" >&2
    for old in "$cache"/java-*; do  # this build replaces any older one
      [ "$old" = "$classes.tmp" ] || rm -rf "$old"
    done
    mv "$classes.tmp" "$classes"
  fi
  echo "$classes"
}

go_bin() {
  local cand m
  for cand in ${KWIRE_GO:-} "$(command -v go || true)" /usr/local/go/bin/go; do
    [ -n "$cand" ] && [ -x "$cand" ] || continue
    m="$(GOTOOLCHAIN=local "$cand" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
    if [ -n "$m" ] && [ "$m" -ge 26 ]; then echo "$cand"; return; fi
  done
  echo "clients.sh: franz-go needs Go >= 1.26 (set KWIRE_GO)" >&2
  return 2
}
prepare_franz_go() {  # prints the binary
  local src="$here/clients/franz-go" gobin stamp bin
  gobin="$(go_bin)"
  stamp="$( { cd "$src" && cat go.mod go.sum ./*.go; "$gobin" version; } | sha256sum | cut -c1-16)"
  bin="$cache/franz-go-$stamp"
  if [ ! -x "$bin" ]; then
    echo "clients.sh: building the franz-go client ($("$gobin" version | cut -d' ' -f3))" >&2
    # go.mod and go.sum are the pins (-mod=readonly); the module cache is the user's, the
    # build cache ours; nothing is written into the tree.
    (cd "$src" && GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=local \
       GOCACHE="$cache/gocache" CGO_ENABLED=0 "$gobin" build -trimpath -o "$bin.tmp" .) >&2
    rm -f "$cache"/franz-go-????????????????
    mv -f "$bin.tmp" "$bin"
  fi
  echo "$bin"
}

prepare_kafka_python() {  # prints the venv's python
  local req="$here/clients/kafka-python/requirements.txt" python stamp venv
  python="${KWIRE_PYTHON:-python3}"
  stamp="$( { cat "$req"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)"
  venv="$cache/kafka-python-$stamp"
  if [ ! -f "$venv/.kwire-ready" ]; then
    echo "clients.sh: installing kafka-python into $venv" >&2
    rm -rf "$cache"/kafka-python-* "$venv.tmp"
    "$python" -m venv "$venv.tmp" >&2
    # The venv is made under its final name's .tmp and moved; pip's scripts are not used.
    "$venv.tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
      --require-hashes -r "$req" >&2
    touch "$venv.tmp/.kwire-ready"
    mv "$venv.tmp" "$venv"
  fi
  echo "$venv/bin/python"
}

prepare_kcat() {
  command -v kcat >/dev/null || { echo "clients.sh: kcat is missing (Debian: apt-get install kcat)" >&2; return 2; }
  command -v kcat
}

exec 9>"$cache/.lock"
flock 9
declare -A built
for c in "${clients[@]}"; do
  case "$c" in
    java) built[$c]="$(prepare_java)" ;;
    kcat) built[$c]="$(prepare_kcat)" ;;
    franz-go) built[$c]="$(prepare_franz_go)" ;;
    kafka-python) built[$c]="$(prepare_kafka_python)" ;;
  esac
done
exec 9>&-
if [ "$prepare" = 1 ]; then
  for c in "${clients[@]}"; do echo "$c: ${built[$c]}"; done
  exit 0
fi

# ---- The broker.
if [ -z "$dir" ]; then
  [ -f "$broker_cache/current" ] || { echo "clients.sh: no broker started (broker.sh start)" >&2; exit 2; }
  dir="$(cat "$broker_cache/current")"
fi
[ -f "$dir/broker.env" ] || { echo "clients.sh: no $dir/broker.env" >&2; exit 2; }
set -a
# shellcheck source=/dev/null
. "$dir/broker.env"
KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT="${KWIRE_CLIENTS_VIA_PLAINTEXT:-$KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT}"
KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT="${KWIRE_CLIENTS_VIA_SASL_PLAINTEXT:-$KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT}"
set +a
"$broker" status --dir "$dir" > /dev/null 2>&1 || { echo "clients.sh: the broker of $dir does not answer" >&2; exit 2; }

status=0
for c in "${clients[@]}"; do
  t0=$(date +%s.%N)
  rc=0
  case "$c" in
    java)
      "$(java_bin)" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
        -Dkafka.logs.dir="$dir/logs" -Dkwire.log.name=clients-java \
        -Dlog4j2.configurationFile="$here/log4j2.yaml" \
        -cp "${built[$c]}:$(cat "$KWIRE_KAFKA_CLASSPATH_FILE")" Clients || rc=$?
      ;;
    kcat) KWIRE_KCAT="${built[$c]}" bash "$here/clients/kcat.sh" || rc=$? ;;
    franz-go) "${built[$c]}" || rc=$? ;;
    kafka-python) "${built[$c]}" "$here/clients/kafka-python/client.py" || rc=$? ;;
  esac
  printf 'clients: %s exit %d in %.1f s\n' "$c" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')"
  [ "$rc" = 0 ] || status=1
done
exit $status
