#!/usr/bin/env bash
# The peer benchmark of issue 16: kwire's frame_benchmark and sarama (Go, Debian's
# golang-github-shopify-sarama-dev 1.22.1) on the same frames, interleaved, with same-run
# ratios. Optional: the default build never needs Go (tools/install-deps.sh --peers
# installs golang-go and sarama). See bench/README.md, "Peer: sarama".
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: bench/peers/run.sh [--rounds N] [--min-time S] [--out DIR] [--build-dir DIR]
                          [--no-build] [--check]
  Builds frame_benchmark (cmake --preset release, unless --no-build), writes the peer
  frames (frame_benchmark --dump_frames=OUT/frames), builds the sarama peer in a
  temporary GOPATH (Debian's sources under /usr/share/gocode, GO111MODULE=off, no
  network), checks that sarama decodes and re-encodes every frame it supports, then
  runs N rounds (default 7) of: kwire, sarama at GOMAXPROCS=1, sarama at GOMAXPROCS=2
  (the order rotating per round), each timing every operation once for at least S
  seconds (default 0.2). Prints tables of the medians over the rounds (wall time, CPU
  time) with the ratios (sarama time / kwire time: > 1 means kwire is faster), then
  the ratios of each side's fastest round.
  --out DIR        keep frames, JSON results and the Go build in DIR (default: a
                   temporary directory, removed at exit)
  --build-dir DIR  kwire's release build (default: build/release)
  --no-build       use the frame_benchmark already in the build directory
  --check          check the peer (decode, re-encode, compare) and time nothing
USAGE
}

root="$(cd "$(dirname "$0")/../.." && pwd)"
rounds=7
min_time=0.2
out=""
build_dir="$root/build/release"
build=1
check_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds|--min-time|--out|--build-dir)
      [ $# -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --min-time) min_time="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --check) check_only=1; shift ;;
    *) echo "run.sh: unexpected argument '$1' (bench/peers/run.sh --help)" >&2; exit 2 ;;
  esac
done
case "$rounds" in ''|*[!0-9]*|0) echo "run.sh: --rounds needs a positive integer" >&2; exit 2 ;; esac

sarama_src=/usr/share/gocode/src/github.com/Shopify/sarama
if ! command -v go >/dev/null || [ ! -d "$sarama_src" ]; then
  echo "run.sh: needs golang-go and golang-github-shopify-sarama-dev:" \
       "tools/install-deps.sh --peers" >&2
  exit 2
fi
sarama_version="$(dpkg-query -W -f='${Version}' golang-github-shopify-sarama-dev 2>/dev/null || echo unknown)"

if [ -z "$out" ]; then
  out="$(mktemp -d /tmp/kwire-peer.XXXXXX)"
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/frames"
out="$(cd "$out" && pwd)"
rm -f "$out"/kwire-*.json "$out"/kwire-*.log "$out"/sarama-p*-*.jsonl  # an earlier run's

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

echo "== sarama peer: $sarama_version ($(go version | cut -d' ' -f3)), GOPATH build in $out/gopath"
gopath="$out/gopath"
rm -rf "$gopath"
mkdir -p "$gopath/src/github.com/Shopify"
cp -r "$sarama_src" "$gopath/src/github.com/Shopify/sarama"
cp "$root/bench/peers/sarama/shim/kwire_peer.go" "$gopath/src/github.com/Shopify/sarama/"
(cd "$root/bench/peers/sarama" &&
 GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= CGO_CFLAGS="-O2 -w" \
   go build -o "$out/sarama_peer" .)
peer="$out/sarama_peer"

echo "== check"
"$peer" -frames "$out/frames" -check
[ "$check_only" = 1 ] && exit 0

# kwire's benchmarks of exactly the dumped frames.
names="$(cut -f1 "$out/frames/frames.tsv" | paste -sd'|')"
filter="^BM_(DecodeFrame|DecodeFrameInto|DecodeFrameBorrowed|EncodeFrame|AppendFrame|RefMemcpy_DecodeFrame)/($names)\$"

run_kwire() {
  "$kwire" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
    --benchmark_format=console --benchmark_out_format=json \
    --benchmark_out="$out/kwire-$1.json" >"$out/kwire-$1.log" 2>&1 ||
    { cat "$out/kwire-$1.log" >&2; exit 1; }
}
run_sarama() {
  GOMAXPROCS="$2" "$peer" -frames "$out/frames" -benchtime "${min_time}s" \
    >"$out/sarama-p$2-$1.jsonl"
}

echo "== $rounds rounds (min time ${min_time} s per operation; load before: $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq 1 "$rounds"); do
  case $((r % 3)) in
    1) run_kwire "$r"; run_sarama "$r" 1; run_sarama "$r" 2 ;;
    2) run_sarama "$r" 1; run_sarama "$r" 2; run_kwire "$r" ;;
    0) run_sarama "$r" 2; run_kwire "$r"; run_sarama "$r" 1 ;;
  esac
  echo "round $r/$rounds done (load $(cut -d' ' -f1 /proc/loadavg))"
done

echo "== results (load after: $(cut -d' ' -f1-3 /proc/loadavg); sarama $sarama_version)"
/usr/bin/python3 "$root/bench/peers/peer_table.py" "$out"
