#!/usr/bin/env bash
# A real single-node Apache Kafka broker (KRaft: broker and controller in one JVM) on
# loopback, from Maven Central artifacts only (org.apache.kafka:kafka_2.13, pinned in
# pom.xml beside this script). See tools/kafka-broker/README.md.
#   tools/kafka-broker/broker.sh start [--dir DIR] ...   # prints KEY=VALUE lines (broker.env)
#   tools/kafka-broker/broker.sh status [--dir DIR]
#   tools/kafka-broker/broker.sh stop [--dir DIR] [--keep]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KWIRE_KAFKA_BROKER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/kafka-broker}"
current="$cache/current"   # the folder of the broker started last (start/status/stop default)
marker=".kwire-kafka-broker"  # in every folder start made; stop removes only such folders
kafka_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
prog="broker.sh"

usage() {
  cat <<USAGE
Usage: tools/kafka-broker/broker.sh COMMAND [OPTIONS]
  A single-node Apache Kafka $kafka_version broker (KRaft, process.roles=broker,controller) on
  127.0.0.1, built from Maven Central artifacts (pom.xml beside this script).
Commands:
  start    resolve the class path (Maven, first use only), format a fresh folder, start the
           broker, wait until both client listeners answer ApiVersions, print its addresses
  status   say whether the broker of a folder is running and answering
  stop     stop it (SIGTERM, then SIGKILL after a bounded wait) and remove its folder
  classpath  resolve (or find) the class path and print it
Run 'broker.sh COMMAND --help' for a command's options.
Environment: JAVA (default: /usr/lib/jvm/java-17*/bin/java, else java on PATH; 17 or newer),
  MVN (default: mvn), KWIRE_KAFKA_BROKER_CACHE (default:
  \${XDG_CACHE_HOME:-~/.cache}/kwire/kafka-broker), KWIRE_KAFKA_BROKER_JAVA_OPTS (extra JVM
  options for the broker).
USAGE
}

usage_start() {
  cat <<'USAGE'
Usage: tools/kafka-broker/broker.sh start [--dir DIR] [--port-plaintext N] [--port-sasl N]
                                          [--port-controller N] [--timeout SECONDS]
                                          [--unstable] [--keep-on-failure]
  Starts a broker in DIR (default: a new folder from mktemp -d under ${TMPDIR:-/tmp}; a given
  DIR must be missing or empty) and waits until its PLAINTEXT and SASL_PLAINTEXT listeners
  answer ApiVersions. Writes DIR/server.properties, DIR/data (KRaft storage, formatted with a
  random cluster id and SCRAM users), DIR/logs/server.log, DIR/broker.env. Prints broker.env
  on stdout (KEY=VALUE lines a shell can source), progress and timings on stderr.
  --dir DIR           the broker's folder
  --port-*  N         listener ports (default: free ports the kernel picks)
  --timeout SECONDS   wait at most this long for ApiVersions (default 90); on timeout the
                      broker is killed, the log tail printed and the exit status is 1
  --unstable          unstable.api.versions.enable=true and unstable.feature.versions.enable=
                      true (advertise the API versions Kafka has not released yet)
  --keep-on-failure   leave DIR when the start fails (default: remove it)
  The broker becomes the default of status, stop and smoke.sh ("the broker started last"),
  unless that one is still running.
USAGE
}

usage_status() {
  cat <<'USAGE'
Usage: tools/kafka-broker/broker.sh status [--dir DIR]
  Prints the broker's broker.env and whether it runs (pid, RSS) and answers ApiVersions.
  DIR defaults to the folder of the broker started last. Exit status 0 when it runs and
  answers, 1 when it does not, 2 when there is no such broker folder.
USAGE
}

usage_stop() {
  cat <<'USAGE'
Usage: tools/kafka-broker/broker.sh stop [--dir DIR] [--keep] [--timeout SECONDS]
  Stops the broker of DIR (default: the folder of the broker started last): SIGTERM (Kafka's
  controlled shutdown), then SIGKILL when it has not exited within --timeout (default 30 s;
  60 s more for the first broker, which writes the class data sharing archive as it exits).
  Removes DIR unless --keep (only a folder that start made: it holds .kwire-kafka-broker).
USAGE
}

die() { echo "$prog: $*" >&2; exit 2; }
note() { echo "$prog: $*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}'; }

find_java() {
  if [ -n "${JAVA:-}" ]; then echo "$JAVA"; return; fi
  local j
  for j in /usr/lib/jvm/java-17*/bin/java; do
    if [ -x "$j" ]; then echo "$j"; return; fi
  done
  command -v java || die "needs a JDK 17 or newer (Debian 12: apt-get install openjdk-17-jdk-headless maven)"
}

# Prints the broker's runtime class path, resolving it with Maven first unless a resolution
# of the same pom.xml with the same JDK is in the cache (the jars stay in Maven's local
# repository; the cache holds only the class path file).
classpath_file() {
  local java
  java="$(readlink -f "$(find_java)")"
  echo "$cache/classpath-$( { cat "$here/pom.xml"; echo "$java"; } | sha256sum | cut -c1-16).txt"
}
classpath() {
  local java mvn file
  java="$(readlink -f "$(find_java)")"
  mvn="${MVN:-mvn}"
  file="$(classpath_file)"
  if [ ! -f "$file" ] || ! classpath_complete "$file"; then
    mkdir -p "$cache"
    exec 8>"$cache/.lock"
    flock 8
    if [ ! -f "$file" ] || ! classpath_complete "$file"; then
      command -v "${mvn%% *}" >/dev/null || die "resolving the broker needs Maven (Debian 12: apt-get install maven)"
      local goals=(validate dependency:build-classpath -Dmdep.outputFile="$file.tmp"
                   -Dmdep.includeScope=runtime -Dkafka.broker.build.directory="$cache/maven")
      export JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$java")")}"
      # Offline first (no network once the local repository has everything), then online.
      # (Maven 3.8 writes colour codes even with -B; they are filtered out.)
      if ! (cd "$here" && $mvn -q -B -o "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >/dev/null; then
        note "resolving kafka_2.13 $kafka_version with Maven (downloads from Maven Central)"
        if ! (cd "$here" && $mvn -q -B "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >&2; then
          die "Maven could not resolve $here/pom.xml"
        fi
      fi
      mv -f "$file.tmp" "$file"
    fi
    exec 8>&-
  fi
  cat "$file"
}

# Every jar of a cached class path still there (Maven's local repository can be cleaned).
classpath_complete() {
  local jar
  while IFS= read -r -d: jar || [ -n "$jar" ]; do
    [ -f "$jar" ] || return 1
  done < "$1"
}

# Free TCP ports on 127.0.0.1, as many as asked: bound together (so distinct), then closed.
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# A Kafka Uuid string (base64url, no padding, not starting with '-': Uuid.randomUuid()).
random_uuid() {
  python3 -c '
import base64, os
while True:
    u = base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode()
    if not u.startswith("-"):
        print(u); break'
}

# Class data sharing (a dynamic AppCDS archive, JDK 13+): the first broker (and format) run
# with -XX:ArchiveClassesAtExit writes the classes it loaded into DIR/<name>.jsa when it exits
# cleanly; stop (start, for format) moves it into the cache; later runs map it
# (-XX:SharedArchiveFile) and start about twice as fast. An archive of another class path or
# JDK build is not used (the name has their hash). KWIRE_KAFKA_BROKER_CDS=0 turns it off.
cds_stamp() {
  local java home
  java="$(readlink -f "$(find_java)")"
  home="$(dirname "$(dirname "$java")")"
  { cat "$(classpath_file)"; cat "$home/release" 2>/dev/null; echo "$java"; } | sha256sum | cut -c1-16
}
cds_opts() {  # NAME DIR: the JVM options for the archive NAME (broker, format)
  [ "${KWIRE_KAFKA_BROKER_CDS:-1}" = 0 ] && return 0
  local archive
  archive="$cache/$1-$(cds_stamp).jsa"
  if [ -s "$archive" ]; then
    echo "-XX:SharedArchiveFile=$archive"
  else
    echo "$archive" > "$2/$1.jsa.target"
    echo "-XX:ArchiveClassesAtExit=$2/$1.jsa"
  fi
}
cds_keep() {  # NAME DIR: after a clean exit, move DIR/NAME.jsa to the cache (old ones out)
  local target
  [ -f "$2/$1.jsa.target" ] || return 0
  target="$(cat "$2/$1.jsa.target")"
  if [ -s "$2/$1.jsa" ]; then
    rm -f "$cache/$1"-*.jsa
    mv -f "$2/$1.jsa" "$target"
  fi
  rm -f "$2/$1.jsa" "$2/$1.jsa.target"
}

random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

probe() { python3 "$here/apiversions.py" --timeout 2 "$@" 2>/dev/null; }

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# The folder a command works on: --dir, else the broker started last.
resolve_dir() {
  if [ -n "$1" ]; then (cd "$1" 2>/dev/null && pwd) || echo "$1"; return; fi
  if [ -f "$current" ]; then cat "$current"; fi
}

# The pid of DIR's broker when it runs (its command line names DIR's server.properties).
broker_pid() {
  local dir="$1" pid
  [ -f "$dir/broker.pid" ] || return 1
  pid="$(cat "$dir/broker.pid")"
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' '\n' < "/proc/$pid/cmdline" | grep -qxF "$dir/server.properties" || return 1
  echo "$pid"
}

log_tail() {
  local dir="$1"
  for f in "$dir/logs/stdout.log" "$dir/logs/server.log"; do
    [ -s "$f" ] || continue
    echo "----- last 40 lines of $f" >&2
    tail -n 40 "$f" >&2
  done
}

cmd_start() {
  # dir, keep_fail and started are global: the EXIT trap reads them.
  dir="" keep_fail=0 started=0
  local port_plain="" port_sasl="" port_ctl="" timeout=90 unstable=0
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) usage_start; exit 0 ;;
      --dir) dir="${2:?--dir needs a value}"; shift ;;
      --port-plaintext) port_plain="${2:?}"; shift ;;
      --port-sasl) port_sasl="${2:?}"; shift ;;
      --port-controller) port_ctl="${2:?}"; shift ;;
      --timeout) timeout="${2:?}"; shift ;;
      --unstable) unstable=1 ;;
      --keep-on-failure) keep_fail=1 ;;
      *) die "start: unexpected argument '$1' (broker.sh start --help)" ;;
    esac
    shift
  done
  local t0 java cp t_cp t_fmt
  t0="$(now)"
  java="$(find_java)"
  local release
  release="$(dirname "$(dirname "$(readlink -f "$java")")")/release"
  if [ -f "$release" ]; then
    grep -qE '^JAVA_VERSION="(1[7-9]|[2-9][0-9])' "$release" || die "$java is not Java 17 or newer"
  else
    "$java" -version 2>&1 | grep -qE 'version "(1[7-9]|[2-9][0-9])' ||
      die "$java is not Java 17 or newer"
  fi
  cp="$(classpath)"
  t_cp="$(since "$t0")"

  if [ -z "$dir" ] && [ -f "$current" ] && broker_pid "$(cat "$current")" >/dev/null; then
    die "start: the broker of $(cat "$current") is running (broker.sh stop; or start --dir DIR for another one)"
  fi
  if [ -n "$dir" ]; then
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
      die "start: $dir is not empty"
    fi
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
  else
    dir="$(mktemp -d "${TMPDIR:-/tmp}/kwire-kafka-broker.XXXXXX")"
  fi
  touch "$dir/$marker"
  mkdir -p "$dir/data" "$dir/logs"
  cleanup_failed() {
    local pid
    if pid="$(broker_pid "$dir")"; then kill -KILL "$pid" 2>/dev/null || true; fi
    if [ -f "$current" ] && [ "$(cat "$current")" = "$dir" ]; then rm -f "$current"; fi
    if [ "$keep_fail" = 0 ] && [ -f "$dir/$marker" ]; then rm -rf "$dir"; else note "left $dir"; fi
  }
  trap '[ "$started" = 1 ] || cleanup_failed' EXIT
  trap 'exit 1' INT TERM HUP

  if [ -z "$port_plain" ] || [ -z "$port_sasl" ] || [ -z "$port_ctl" ]; then
    local free
    read -r -a free <<<"$(free_ports 3)"
    port_plain="${port_plain:-${free[0]}}"
    port_sasl="${port_sasl:-${free[1]}}"
    port_ctl="${port_ctl:-${free[2]}}"
  fi
  local cluster_id admin=kwire-admin user=kwire-user admin_pw user_pw token_key
  cluster_id="$(random_uuid)"
  admin_pw="$(random_hex 16)"
  user_pw="$(random_hex 16)"
  token_key="$(random_hex 32)"

  # server.properties: see README.md ("Configuration") for why each line is there.
  cat > "$dir/server.properties" <<EOF
# Written by tools/kafka-broker/broker.sh for Apache Kafka $kafka_version; see its README.md.
# KRaft, one node that is broker and controller, a dynamic quorum of one voter (format --standalone).
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$port_ctl
controller.listener.names=CONTROLLER
# Loopback only.
listeners=PLAINTEXT://127.0.0.1:$port_plain,SASL_PLAINTEXT://127.0.0.1:$port_sasl,CONTROLLER://127.0.0.1:$port_ctl
advertised.listeners=PLAINTEXT://127.0.0.1:$port_plain,SASL_PLAINTEXT://127.0.0.1:$port_sasl
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
# SCRAM on the SASL listener; the users are in the metadata log (format --add-scram).
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
# Delegation tokens (need a SASL listener and this key; delegation.token.master.key is gone in 4.x).
delegation.token.secret.key=$token_key
# ACLs. ANONYMOUS is the principal of every PLAINTEXT connection, the broker's own to the
# controller too: it must be a super user (KIP-801: until the authorizer has loaded the
# metadata, only super users pass). Other principals: allowed unless an ACL names the resource.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS;User:$admin
allow.everyone.if.no.acl.found=true
# Storage.
log.dirs=$dir/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
# Internal topics on one node: replication factor 1, min ISR 1, one partition each (their
# creation is the slow part of the first group or transaction on 2 cores).
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
share.coordinator.state.topic.num.partitions=1
# Groups: classic, consumer (KIP-848), share (KIP-932) and streams (KIP-1071) groups are all
# on: format sets the features at 4.4-IV2 (group.version=1, share.version=2, streams.version=1);
# group.coordinator.rebalance.protocols is deprecated in 4.4 (its default is fine; naming
# 'share' there only logs deprecation warnings) and group.share.enable is gone.
group.initial.rebalance.delay.ms=0
group.streams.initial.rebalance.delay.ms=0
# Threads: a test broker on 2 cores.
num.network.threads=2
num.io.threads=4
background.threads=4
num.recovery.threads.per.data.dir=1
group.coordinator.threads=1
share.coordinator.threads=1
EOF
  if [ "$unstable" = 1 ]; then
    printf '%s\n' "# --unstable" "unstable.api.versions.enable=true" \
      "unstable.feature.versions.enable=true" >> "$dir/server.properties"
  fi

  local jvm_log=(-Dkafka.logs.dir="$dir/logs" -Dlog4j2.configurationFile="$here/log4j2.yaml")
  # Format: a random cluster id, a single-voter dynamic quorum, the SCRAM users.
  local tf scram=()
  tf="$(now)"
  for m in SCRAM-SHA-256 SCRAM-SHA-512; do
    scram+=(--add-scram "$m=[name=$admin,password=$admin_pw]"
            --add-scram "$m=[name=$user,password=$user_pw]")
  done
  local cds_format
  cds_format="$(cds_opts format "$dir")"
  if ! "$java" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC $cds_format "${jvm_log[@]}" -cp "$cp" \
       kafka.tools.StorageTool format --config "$dir/server.properties" \
       --cluster-id "$cluster_id" --standalone "${scram[@]}" > "$dir/logs/format.log" 2>&1; then
    cat "$dir/logs/format.log" >&2
    die "start: formatting $dir/data failed"
  fi
  cds_keep format "$dir"
  t_fmt="$(since "$tf")"

  # The broker: Java 17, G1 with kafka-run-class.sh's settings, a modest heap.
  local opts=(-Xms512m -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20
              -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
              -Djava.awt.headless=true "${jvm_log[@]}" $(cds_opts broker "$dir")
              ${KWIRE_KAFKA_BROKER_JAVA_OPTS:-})
  local ts pid
  ts="$(now)"
  # setsid: its own session, so the caller's terminal signals and job control leave it alone.
  setsid "$java" "${opts[@]}" -cp "$cp" kafka.Kafka "$dir/server.properties" \
    > "$dir/logs/stdout.log" 2>&1 < /dev/null &
  pid=$!
  echo "$pid" > "$dir/broker.pid"
  mkdir -p "$cache"
  # DIR becomes the default of status, stop and smoke.sh, unless the broker started last
  # still runs: a script's own broker (tools/proxy/live.sh, cost.sh) never takes the
  # pointer from a user's.
  if ! { [ -f "$current" ] && broker_pid "$(cat "$current")" >/dev/null; }; then
    echo "$dir" > "$current"
  fi

  local deadline up=0
  deadline=$(( $(date +%s) + timeout ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      note "start: the broker exited (status $(wait "$pid" 2>/dev/null; echo $?))"
      log_tail "$dir"
      exit 1
    fi
    if probe "127.0.0.1:$port_plain" && probe "127.0.0.1:$port_sasl"; then up=1; break; fi
    sleep 0.25
  done
  if [ "$up" = 0 ]; then
    note "start: no ApiVersions answer on 127.0.0.1:$port_plain and :$port_sasl within ${timeout} s"
    log_tail "$dir"
    exit 1
  fi
  local t_up t_total rss
  t_up="$(since "$ts")"
  t_total="$(since "$t0")"
  rss="$(rss_kib "$pid")"

  cat > "$dir/broker.env" <<EOF
KWIRE_KAFKA_VERSION=$kafka_version
KWIRE_KAFKA_BOOTSTRAP=127.0.0.1:$port_plain
KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT=127.0.0.1:$port_plain
KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT=127.0.0.1:$port_sasl
KWIRE_KAFKA_CONTROLLER=127.0.0.1:$port_ctl
KWIRE_KAFKA_SASL_MECHANISMS=SCRAM-SHA-256,SCRAM-SHA-512
KWIRE_KAFKA_SCRAM_USER=$admin
KWIRE_KAFKA_SCRAM_PASSWORD=$admin_pw
KWIRE_KAFKA_SCRAM_USER2=$user
KWIRE_KAFKA_SCRAM_PASSWORD2=$user_pw
KWIRE_KAFKA_CLUSTER_ID=$cluster_id
KWIRE_KAFKA_PID=$pid
KWIRE_KAFKA_DIR=$dir
KWIRE_KAFKA_LOG=$dir/logs/server.log
KWIRE_KAFKA_CLASSPATH_FILE=$(classpath_file)
EOF
  started=1
  trap - EXIT INT TERM HUP
  note "Apache Kafka $kafka_version up: PLAINTEXT 127.0.0.1:$port_plain, SASL_PLAINTEXT (SCRAM-SHA-256/512) 127.0.0.1:$port_sasl, CONTROLLER 127.0.0.1:$port_ctl; pid $pid, RSS $((rss / 1024)) MiB"
  note "timings: total ${t_total} s = class path ${t_cp} s + format ${t_fmt} s + start to ApiVersions ${t_up} s; folder $dir"
  cat "$dir/broker.env"
}

cmd_status() {
  local dir=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) usage_status; exit 0 ;;
      --dir) dir="${2:?--dir needs a value}"; shift ;;
      *) die "status: unexpected argument '$1' (broker.sh status --help)" ;;
    esac
    shift
  done
  dir="$(resolve_dir "$dir")"
  if [ -z "$dir" ] || [ ! -f "$dir/server.properties" ]; then
    note "status: no broker folder${dir:+ at $dir}"
    exit 2
  fi
  local pid
  if ! pid="$(broker_pid "$dir")"; then
    note "status: the broker of $dir is not running"
    exit 1
  fi
  [ -f "$dir/broker.env" ] && cat "$dir/broker.env"
  local plain sasl
  plain="$(sed -n 's/^KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT=//p' "$dir/broker.env" 2>/dev/null)"
  sasl="$(sed -n 's/^KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT=//p' "$dir/broker.env" 2>/dev/null)"
  if [ -n "$plain" ] && probe "$plain" && probe "$sasl"; then
    note "status: running (pid $pid, RSS $(( $(rss_kib "$pid") / 1024 )) MiB) and answering ApiVersions on $plain and $sasl"
    exit 0
  fi
  note "status: running (pid $pid) but not answering ApiVersions${plain:+ on $plain}"
  exit 1
}

cmd_stop() {
  local dir="" keep=0 timeout=30
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) usage_stop; exit 0 ;;
      --dir) dir="${2:?--dir needs a value}"; shift ;;
      --keep) keep=1 ;;
      --timeout) timeout="${2:?}"; shift ;;
      *) die "stop: unexpected argument '$1' (broker.sh stop --help)" ;;
    esac
    shift
  done
  dir="$(resolve_dir "$dir")"
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    note "stop: no broker folder${dir:+ at $dir}"
    exit 2
  fi
  local pid t0 how="not running"
  t0="$(now)"
  if pid="$(broker_pid "$dir")"; then
    kill -TERM "$pid" 2>/dev/null || true
    # The first broker writes its class data sharing archive as it exits: a minute more.
    [ -f "$dir/broker.jsa.target" ] && timeout=$((timeout + 60))
    local deadline=$(( $(date +%s) + timeout ))
    while [ -d "/proc/$pid" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.1; done
    if [ -d "/proc/$pid" ]; then
      note "stop: pid $pid still running after ${timeout} s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while [ -d "/proc/$pid" ]; do sleep 0.1; done
      how="killed (SIGKILL)"
      rm -f "$dir/broker.jsa"  # perhaps half written
    else
      how="stopped (SIGTERM)"
    fi
  fi
  cds_keep broker "$dir"
  note "stop: broker of $dir $how in $(since "$t0") s"
  if [ -f "$current" ] && [ "$(cat "$current")" = "$dir" ]; then rm -f "$current"; fi
  if [ "$keep" = 1 ]; then
    note "stop: kept $dir"
  elif [ -f "$dir/$marker" ]; then
    rm -rf "$dir"
  else
    note "stop: $dir has no $marker; not removed"
  fi
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
command="$1"; shift
case "$command" in
  -h|--help|help) usage ;;
  start) cmd_start "$@" ;;
  status) cmd_status "$@" ;;
  stop) cmd_stop "$@" ;;
  classpath)
    case "${1:-}" in -h|--help) echo "Usage: tools/kafka-broker/broker.sh classpath"; exit 0 ;; esac
    classpath; echo ;;
  *) die "unknown command '$command' (broker.sh --help)" ;;
esac
