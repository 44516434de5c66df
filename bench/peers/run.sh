#!/usr/bin/env bash
# The peer benchmark (issues 16 and 31): kwire's frame_benchmark against other Kafka codecs
# on the same frames, interleaved, with same-run ratios. Peers: sarama 1.22.1 (Debian's
# golang-github-shopify-sarama-dev), the newest sarama (github.com/IBM/sarama), franz-go's
# kmsg, the kafka-protocol crate (Rust) and Apache Kafka's kafka-clients (Java, under JMH).
# Optional: the default build needs none of them. See bench/README.md, "Peers".
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: bench/peers/run.sh [--peers LIST] [--rounds N] [--min-time S] [--out DIR]
                          [--build-dir DIR] [--no-build] [--check] [--quick]
                          [--gomaxprocs LIST] [--java-rounds N]
  Builds frame_benchmark (cmake --preset release, unless --no-build), writes the peer
  frames (frame_benchmark --dump_frames=OUT/frames, each checked by kwire), builds each
  peer (in a cache directory; versions pinned), checks every peer on every frame (decode,
  re-encode, same bytes: a frame a peer cannot handle is listed as unsupported, with the
  reason, and not timed), then runs N rounds; in each round kwire and every peer (the
  order rotating from round to round) time each operation once for at least S seconds.
  Prints tables of the medians over the rounds (wall time, CPU time) with the ratios
  peer time / kwire time (> 1: kwire faster), the allocations, and issue 31's targets;
  writes OUT/peers.json.
  --peers LIST     comma-separated, of: sarama (1.22.1, Debian's package), sarama-latest,
                   franz-go, rust, java. Default: every one whose toolchain is installed
                   (go; cargo; java + mvn). A peer asked for whose toolchain is missing is
                   an error.
  --rounds N       rounds (default 5; --quick: 2)
  --min-time S     seconds per operation and round (default 0.1; --quick: 0.05)
  --java-rounds N  rounds that include Java (default: 2, at most N; --quick: 1): each JMH
                   run forks one JVM per frame and operation (warm-up, then one measured
                   iteration of S seconds), the slowest part of a round
  --gomaxprocs L   GOMAXPROCS values the Go peers run at (default 1; "1,2" as issue 16)
  --quick          a short run (2 rounds, 0.05 s, Java once with a shorter warm-up)
  --out DIR        keep frames, checks, logs and JSON results in DIR (default: a
                   temporary directory, removed at exit)
  --build-dir DIR  kwire's release build (default: build/release)
  --no-build       use the frame_benchmark already in the build directory
  --check          check the peers (decode, re-encode, compare) and time nothing
  Caches: $KWIRE_PEER_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwire/peers (one directory
  per peer: its build, named by a hash of everything it is built from). The first builds
  download the pinned modules (Go module proxy, crates.io, Maven Central) and take minutes
  (Rust about 2, Java under 1, each Go peer about 1); later runs reuse them.
  Environment: KWIRE_GO (a Go >= 1.21 for the module builds), JAVA, MVN.
USAGE
}

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/peers"
rounds=""
min_time=""
java_rounds=""
gomaxprocs="1"
peers=""
out=""
build_dir="$root/build/release"
build=1
check_only=0
quick=0
cmdline="bench/peers/run.sh $*"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds|--min-time|--out|--build-dir|--peers|--gomaxprocs|--java-rounds)
      [ $# -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --min-time) min_time="$2"; shift 2 ;;
    --java-rounds) java_rounds="$2"; shift 2 ;;
    --gomaxprocs) gomaxprocs="$2"; shift 2 ;;
    --peers) peers="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --check) check_only=1; shift ;;
    --quick) quick=1; shift ;;
    *) echo "run.sh: unexpected argument '$1' (bench/peers/run.sh --help)" >&2; exit 2 ;;
  esac
done
if [ "$quick" = 1 ]; then
  rounds="${rounds:-2}"; min_time="${min_time:-0.05}"; java_rounds="${java_rounds:-1}"
  java_warmup=(-wi 1 -w 300ms)
else
  rounds="${rounds:-5}"; min_time="${min_time:-0.1}"; java_rounds="${java_rounds:-2}"
  java_warmup=(-wi 2 -w 300ms)
fi
case "$rounds" in ''|*[!0-9]*|0) echo "run.sh: --rounds needs a positive integer" >&2; exit 2 ;; esac
case "$java_rounds" in ''|*[!0-9]*) echo "run.sh: --java-rounds needs an integer" >&2; exit 2 ;; esac
[ "$java_rounds" -le "$rounds" ] || java_rounds="$rounds"
case "$min_time" in ''|*[!0-9.]*|*.*.*) echo "run.sh: --min-time needs seconds (e.g. 0.1)" >&2; exit 2 ;; esac
min_ms="$(awk -v s="$min_time" 'BEGIN { m = int(s * 1000 + 0.5); print (m < 1 ? 1 : m) }')"
IFS=, read -r -a procs <<<"$gomaxprocs"
for p in "${procs[@]}"; do
  case "$p" in ''|*[!0-9]*|0) echo "run.sh: --gomaxprocs needs positive integers" >&2; exit 2 ;; esac
done

cache_root="${KWIRE_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/peers}"
sarama_src=/usr/share/gocode/src/github.com/Shopify/sarama

# A Go for the module builds: >= 1.26 (the pinned modules say go 1.26.0) directly, or a
# 1.21+ that fetches 1.26 from the module proxy (GOTOOLCHAIN=auto).
go_minor() { GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p'; }
gomod=""
for cand in ${KWIRE_GO:-} "$(command -v go || true)" /usr/local/go/bin/go; do
  [ -n "$cand" ] && [ -x "$cand" ] || continue
  m="$(go_minor "$cand")"
  if [ -n "$m" ] && [ "$m" -ge 26 ]; then gomod="$cand"; break; fi
  if [ -z "$gomod" ] && [ -n "$m" ] && [ "$m" -ge 21 ]; then gomod="$cand"; fi
done
java="${JAVA:-java}"
mvn="${MVN:-mvn}"

have() {  # have PEER: its toolchain is installed
  case "$1" in
    sarama) command -v go >/dev/null && [ -d "$sarama_src" ] ;;
    sarama-latest|franz-go) [ -n "$gomod" ] ;;
    rust) command -v cargo >/dev/null ;;
    java) command -v "$java" >/dev/null && command -v "$mvn" >/dev/null ;;
    *) return 1 ;;
  esac
}
need() {
  case "$1" in
    sarama) echo "golang-go and golang-github-shopify-sarama-dev (tools/install-deps.sh --peers)" ;;
    sarama-latest|franz-go) echo "Go >= 1.21 (KWIRE_GO=/path/to/go)" ;;
    rust) echo "cargo" ;;
    java) echo "a JDK 17+ and Maven (JAVA, MVN)" ;;
  esac
}
all_peers=(sarama sarama-latest franz-go rust java)
selected=()
if [ -n "$peers" ]; then
  IFS=, read -r -a asked <<<"$peers"
  for p in "${asked[@]}"; do
    case " ${all_peers[*]} " in *" $p "*) ;; *)
      echo "run.sh: unknown peer '$p' (one of: ${all_peers[*]})" >&2; exit 2 ;; esac
    have "$p" || { echo "run.sh: peer $p needs $(need "$p")" >&2; exit 2; }
    selected+=("$p")
  done
else
  for p in "${all_peers[@]}"; do
    if have "$p"; then selected+=("$p"); else echo "run.sh: skipping peer $p (needs $(need "$p"))"; fi
  done
fi
[ ${#selected[@]} -gt 0 ] || { echo "run.sh: no peer to run" >&2; exit 2; }
selected_has() { case " ${selected[*]} " in *" $1 "*) return 0 ;; esac; return 1; }

if [ -z "$out" ]; then
  out="$(mktemp -d /tmp/kwire-peer.XXXXXX)"
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/frames"
out="$(cd "$out" && pwd)"
# An earlier run's results.
rm -f "$out"/kwire-*.json "$out"/kwire-*.log "$out"/*-p*-*.jsonl "$out"/rust-*.jsonl \
      "$out"/java-*.json "$out"/java-*.log "$out"/check-*.txt "$out"/peers.json "$out"/meta.json
start_s=$(date +%s)

if [ "$build" = 1 ]; then
  if [ "$build_dir" = "$root/build/release" ]; then
    (cd "$root" && cmake --preset release >/dev/null)
  fi
  cmake --build "$build_dir" --target frame_benchmark
fi
kwire="$build_dir/bench/frame_benchmark"
[ -x "$kwire" ] || { echo "run.sh: no $kwire (build it, or drop --no-build)" >&2; exit 1; }

echo "== frames"
"$kwire" --dump_frames="$out/frames"

# stamp FILES...: a short hash of the files' contents and the extra text on stdin.
stamp() { { cat "$@"; cat; } | sha256sum | cut -c1-16; }

# ---- Builds. Each sets a command array that runs the peer: run_<peer>.
declare -A versions
build_sarama() {
  versions[sarama]="$(dpkg-query -W -f='${Version}' golang-github-shopify-sarama-dev 2>/dev/null || echo unknown)"
  echo "== sarama peer: ${versions[sarama]} ($(go version | cut -d' ' -f3)), GOPATH build in $out/gopath"
  local gopath="$out/gopath"
  rm -rf "$gopath"
  mkdir -p "$gopath/src/github.com/Shopify"
  cp -r "$sarama_src" "$gopath/src/github.com/Shopify/sarama"
  # The sarama adapter's one home: the testee's shim (conformance/testees/sarama/shim/).
  cp "$root/conformance/testees/sarama/shim/kwire_peer.go" "$gopath/src/github.com/Shopify/sarama/"
  (cd "$here/sarama" &&
   GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= CGO_CFLAGS="-O2 -w" \
     go build -o "$out/sarama_peer" .)
  peer_cmd_sarama=("$out/sarama_peer")
}

# Serialised with flock on the cache directory; the binary appears whole or not at all.
build_sarama_latest() {
  local t="$root/conformance/testees/sarama-latest" cache="$cache_root/sarama-latest"
  local s
  s="$(stamp "$here"/sarama/*.go "$here"/sarama/latest/go.* "$t"/alias/* "$t"/shim/*.go \
        <<<"$("$gomod" version)")"
  local bin="$cache/sarama_latest_peer-$s"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    (
      flock 9
      [ -x "$bin" ] && exit 0
      echo "== sarama-latest peer: building in $cache (module pins: bench/peers/sarama/latest)"
      export GOFLAGS=-mod=readonly GOCACHE="$cache/gocache" CGO_ENABLED=0 GOTOOLCHAIN=auto
      local src="$cache/src"
      rm -rf "$src" "$cache"/sarama_latest_peer-* "$cache"/build.tmp
      mkdir -p "$src"
      cp "$here"/sarama/latest/go.mod "$here"/sarama/latest/go.sum "$here"/sarama/*.go "$src/"
      cp -r "$t/alias" "$src/alias"
      # sarama's module source as go.sum pins it (go mod download verifies the hash), copied
      # so that the testee's shims compile into its package (they call unexported functions).
      local dir
      dir="$(cd "$src" && "$gomod" mod download -json github.com/IBM/sarama |
             sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
      [ -d "$dir" ] || { echo "run.sh: go mod download github.com/IBM/sarama failed" >&2; exit 1; }
      cp -r "$dir" "$src/ibm-sarama"
      chmod -R u+w "$src/ibm-sarama"
      cp "$t"/shim/*.go "$src/ibm-sarama/"
      (cd "$src" && "$gomod" mod edit -replace github.com/IBM/sarama=./ibm-sarama &&
       "$gomod" build -trimpath -tags sarama_latest -o "$cache/build.tmp" .)
      mv -f "$cache/build.tmp" "$bin"
    ) 9>"$cache/lock"
  fi
  versions[sarama-latest]="$(sed -n 's/^[[:space:]]*github.com\/IBM\/sarama \(v[^ ]*\).*/\1/p' "$here/sarama/latest/go.mod")"
  echo "== sarama-latest peer: github.com/IBM/sarama ${versions[sarama-latest]}: $bin"
  peer_cmd_sarama_latest=("$bin")
}

build_franz_go() {
  local t="$root/conformance/testees/franz-go" cache="$cache_root/franz-go" s
  s="$(stamp "$here"/franz-go/go.mod "$here"/franz-go/go.sum "$here"/franz-go/*.go \
        "$t/go.mod" "$t"/adapter/*.go <<<"$("$gomod" version)")"
  local bin="$cache/franz_go_peer-$s"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    (
      flock 9
      [ -x "$bin" ] && exit 0
      echo "== franz-go peer: building in $cache"
      rm -f "$cache"/franz_go_peer-* "$cache"/build.tmp
      # -mod=readonly: go.mod and go.sum are the pins, never rewritten; nothing is written
      # into the source tree (the output and the build cache are in $cache).
      (cd "$here/franz-go" &&
       GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=auto GOCACHE="$cache/gocache" \
         CGO_ENABLED=0 "$gomod" build -trimpath -o "$cache/build.tmp" .)
      mv -f "$cache/build.tmp" "$bin"
    ) 9>"$cache/lock"
  fi
  versions[franz-go]="$(sed -n 's/^[[:space:]]*github.com\/twmb\/franz-go\/pkg\/kmsg \(v[^ ]*\).*/kmsg \1/p' "$here/franz-go/go.mod")"
  echo "== franz-go peer: ${versions[franz-go]}: $bin"
  peer_cmd_franz_go=("$bin")
}

build_rust() {
  local t="$root/conformance/testees/rust-kafka-protocol" cache="$cache_root/rust" s
  s="$(stamp "$here"/rust/Cargo.toml "$here"/rust/Cargo.lock "$here"/rust/src/*.rs \
        "$t/Cargo.toml" "$t/src/lib.rs" <<<"$(cargo --version; rustc --version)")"
  local bin="$cache/kafka_protocol_peer-$s"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    (
      flock 9
      [ -x "$bin" ] && exit 0
      echo "== rust peer: building in $cache ($(cargo --version))"
      rm -f "$cache"/kafka_protocol_peer-* "$cache"/build.tmp
      # --locked: Cargo.lock is the pin; the target directory is in the cache.
      CARGO_TARGET_DIR="$cache/target" CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" \
        cargo build --release --locked --manifest-path "$here/rust/Cargo.toml"
      cp "$cache/target/release/kafka_protocol_peer" "$cache/build.tmp"
      mv -f "$cache/build.tmp" "$bin"
    ) 9>"$cache/lock"
  fi
  versions[rust]="kafka-protocol $(sed -n '/^name = "kafka-protocol"$/{n;s/^version = "\(.*\)"$/\1/p}' "$here/rust/Cargo.lock")"
  echo "== rust peer: ${versions[rust]}: $bin"
  peer_cmd_rust=("$bin")
}

java_opts=(-Xms1g -Xmx1g)
build_java() {
  local cache="$cache_root/java" s
  local jdk
  jdk="$(readlink -f "$(command -v "$java")")"
  s="$( { cat "$here/java/pom.xml"
          find "$here/java/src" "$root/conformance/testees/apache-kafka/src/adapter" -type f \
            -name '*.java' -print0 | LC_ALL=C sort -z | xargs -0 cat
          echo "$jdk"; } | sha256sum | cut -c1-16)"
  local cpfile="$cache/classpath-$s"
  if [ ! -f "$cpfile" ]; then
    mkdir -p "$cache"
    (
      flock 9
      [ -f "$cpfile" ] && exit 0
      echo "== java peer: building in $cache (Maven)"
      rm -rf "$cache"/classpath-* "$cache/target"
      local goals=(-q -B compile dependency:build-classpath -Dpeer.build.directory="$cache/target"
                   -Dmdep.outputFile="$cache/deps.txt" -Dmdep.includeScope=runtime)
      # Offline first (no network once the local repository has everything), then online.
      if ! (cd "$here/java" && "$mvn" -o "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >/dev/null; then
        (cd "$here/java" && "$mvn" "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >&2 ||
          { echo "run.sh: the Java peer's build failed" >&2; exit 1; }
      fi
      echo "$cache/target/classes:$(cat "$cache/deps.txt")" >"$cache/classpath.tmp"
      mv -f "$cache/classpath.tmp" "$cpfile"
    ) 9>"$cache/lock"
  fi
  java_cp="$(cat "$cpfile")"
  local kafka jmh
  kafka="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/java/pom.xml")"
  jmh="$(sed -n 's:.*<jmh.version>\(.*\)</jmh.version>.*:\1:p' "$here/java/pom.xml")"
  versions[java]="kafka-clients $kafka, JMH $jmh, $("$java" -version 2>&1 | head -1)"
  echo "== java peer: ${versions[java]}"
}

for p in "${selected[@]}"; do
  case "$p" in
    sarama) build_sarama ;;
    sarama-latest) build_sarama_latest ;;
    franz-go) build_franz_go ;;
    rust) build_rust ;;
    java) build_java ;;
  esac
done

# ---- Checks: OUT/check-<peer>.txt, one verdict per frame ("ok: ..." or "unsupported: ...").
check_peer() {
  case "$1" in
    sarama) "${peer_cmd_sarama[@]}" -frames "$out/frames" -check ;;
    sarama-latest) "${peer_cmd_sarama_latest[@]}" -frames "$out/frames" -check ;;
    franz-go) "${peer_cmd_franz_go[@]}" -frames "$out/frames" -check ;;
    rust) "${peer_cmd_rust[@]}" --frames "$out/frames" --check ;;
    java) "$java" "${java_opts[@]}" -cp "$java_cp" kwire.peer.Check "$out/frames" ;;
  esac
}
for p in "${selected[@]}"; do
  echo "== check: $p (${versions[$p]})"
  check_peer "$p" | tee "$out/check-$p.txt"
done
if [ "$check_only" = 1 ]; then
  echo "== check done ($(( $(date +%s) - start_s )) s)"
  exit 0
fi

# ---- kwire's benchmarks of exactly the dumped frames: decode (a new message), decode into
# a reused message, encode into a new buffer, append into a reused Writer; for frames with
# records (Produce, Fetch) also with records unexamined and borrowed (what the peers that
# keep records as bytes of the frame do).
names="$(cut -f1 "$out/frames/frames.tsv" | paste -sd'|')"
records_names="$(awk -F'\t' '$2 == 0 || $2 == 1 {print $1}' "$out/frames/frames.tsv" | paste -sd'|')"
filter="^BM_(DecodeFrame|DecodeFrameInto|EncodeFrame|AppendFrame)/($names)\$"
[ -n "$records_names" ] &&
  filter+="|^BM_(DecodeFrameOpaqueBorrowed|DecodeFrameIntoOpaqueBorrowed)/($records_names)\$"

ok_frames() { sed -n 's/^\(.*\) ([0-9]* bytes): ok.*$/\1/p' "$out/check-$1.txt"; }
java_frames="$( [ -f "$out/check-java.txt" ] && ok_frames java | paste -sd, || true)"

run_kwire() {
  "$kwire" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
    --benchmark_format=console --benchmark_out_format=json \
    --benchmark_out="$out/kwire-$1.json" >"$out/kwire-$1.log" 2>&1 ||
    { cat "$out/kwire-$1.log" >&2; exit 1; }
}
run_go() {  # run_go PEER ROUND PROCS
  local -n cmd="peer_cmd_${1//-/_}"
  GOMAXPROCS="$3" "${cmd[@]}" -frames "$out/frames" -benchtime "${min_time}s" \
    >"$out/$1-p$3-$2.jsonl"
}
run_rust() {
  "${peer_cmd_rust[@]}" --frames "$out/frames" --benchtime "$min_time" >"$out/rust-$1.jsonl"
}
run_java() {
  [ -n "$java_frames" ] || return 0
  # One fork per frame and operation (-f 1): warm-up, then one measured iteration.
  "$java" "${java_opts[@]}" -cp "$java_cp" org.openjdk.jmh.Main kwire.peer.PeerBench \
    -f 1 "${java_warmup[@]}" -i 1 -r "${min_ms}ms" -tu ns -bm avgt -prof gc \
    -p frame="$java_frames" -jvmArgsAppend "${java_opts[*]} -Dkwire.frames=$out/frames" \
    -rf json -rff "$out/java-$1.json" >"$out/java-$1.log" 2>&1 ||
    { tail -40 "$out/java-$1.log" >&2; exit 1; }
}

# The runners of one round: kwire, each Go peer at each GOMAXPROCS, Rust, Java (in
# --java-rounds of the rounds, spread over the run).
runners=(kwire)
for p in "${selected[@]}"; do
  case "$p" in
    sarama|sarama-latest|franz-go) for g in "${procs[@]}"; do runners+=("$p:$g"); done ;;
    *) runners+=("$p") ;;
  esac
done
run_one() {  # run_one RUNNER ROUND
  case "$1" in
    kwire) run_kwire "$2" ;;
    rust) run_rust "$2" ;;
    java) if (( ((($2 - 1) * java_rounds) % rounds) < java_rounds )); then run_java "$2"; fi ;;
    *) run_go "${1%%:*}" "$2" "${1##*:}" ;;
  esac
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $rounds rounds (min time ${min_time} s per operation; Java in $java_rounds; load before: $load_before)"
n=${#runners[@]}
for r in $(seq 1 "$rounds"); do
  order=()
  for i in $(seq 0 $((n - 1))); do order+=("${runners[$(( (i + r - 1) % n ))]}"); done
  t0=$(date +%s)
  took=()
  for x in "${order[@]}"; do
    t1=$(date +%s)
    run_one "$x" "$r"
    took+=("$x $(( $(date +%s) - t1 ))s")
  done
  echo "round $r/$rounds done in $(( $(date +%s) - t0 )) s: $(IFS=,; echo "${took[*]}" | sed 's/,/, /g') (load $(cut -d' ' -f1 /proc/loadavg))"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

{
  printf '{"command": "%s", "peers": {' "$cmdline"
  sep=""
  for p in "${selected[@]}"; do printf '%s"%s": "%s"' "$sep" "$p" "${versions[$p]//\"/}"; sep=", "; done
  printf '}, "rounds": %s, "java_rounds": %s, "min_time_s": %s, "gomaxprocs": [%s],' \
    "$rounds" "$java_rounds" "$min_time" "$gomaxprocs"
  printf ' "load_before": "%s", "load_after": "%s", "nproc": %s, "started": "%s", "seconds": %s,' \
    "$load_before" "$load_after" "$(nproc)" "$(date -u -d "@$start_s" +%FT%TZ)" "$(( $(date +%s) - start_s ))"
  printf ' "go": "%s", "cpu": "%s"}\n' "$( { "$gomod" version 2>/dev/null || go version; } | cut -d' ' -f3)" \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
} >"$out/meta.json"

echo "== results (load before: $load_before, after: $load_after; $(( $(date +%s) - start_s )) s)"
/usr/bin/python3 "$here/peer_table.py" "$out"
echo "(JSON: $out/peers.json)"
