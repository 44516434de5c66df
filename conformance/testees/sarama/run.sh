#!/usr/bin/env bash
# The sarama testee for kwire's conformance runner (conformance/README.md, "Testing
# another implementation: the testee protocol"): builds sarama_testee against Debian's
# golang-github-shopify-sarama-dev (1.22.1) in a cache directory, offline, and execs it.
#   kwire conformance --testee conformance/testees/sarama/run.sh conformance/vectors
# See conformance/testees/sarama/README.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/sarama/run.sh [--help] [--build-only]
  Builds the sarama testee (Go, GOPATH mode, GO111MODULE=off, Debian's sources under
  /usr/share/gocode, no network) into a cache directory, unless a binary built from the
  same sources is there, then execs it: it speaks the testee protocol (version 1) on
  stdin/stdout. Build messages go to stderr. The first build takes ~10 s, as long as
  the runner waits for the hello: build first with --build-only (or pass the runner
  --timeout 60).
  --build-only  build (or find) the binary, print its path and exit
  Cache: $KWIRE_TESTEE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwire/testee-sarama.
  Needs golang-go and golang-github-shopify-sarama-dev (tools/install-deps.sh --peers).
USAGE
}

build_only=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --build-only) build_only=1 ;;
    *) echo "run.sh: unexpected argument '$arg' (conformance/testees/sarama/run.sh --help)" >&2
       exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
sarama_src=/usr/share/gocode/src/github.com/Shopify/sarama
peer_shim="$root/bench/peers/sarama/shim/kwire_peer.go"
if ! command -v go >/dev/null || [ ! -d "$sarama_src" ]; then
  echo "run.sh: the sarama testee needs golang-go and golang-github-shopify-sarama-dev" \
       "(Debian 12: tools/install-deps.sh --peers, or" \
       "apt-get install golang-go golang-github-shopify-sarama-dev)" >&2
  exit 2
fi
[ -f "$peer_shim" ] || { echo "run.sh: missing $peer_shim" >&2; exit 2; }

cache="${KWIRE_TESTEE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/testee-sarama}"
# The binary's name depends on everything it is built from.
stamp="$( { cat "$here/main.go" "$here/shim/kwire_testee.go" "$peer_shim"
            go version
            dpkg-query -W -f='${Version}' golang-github-shopify-sarama-dev 2>/dev/null || true
            ls -l --time-style=+%s "$sarama_src"; } | sha256sum | cut -c1-16)"
bin="$cache/sarama_testee-$stamp"

if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  # One build at a time; the GOPATH's path stays the same from build to build so that Go's
  # build cache keeps sarama's compiled package while only main.go changes.
  exec 9>"$cache/lock"
  flock 9
  if [ ! -x "$bin" ]; then
    echo "run.sh: building the sarama testee in $cache ($(go version | cut -d' ' -f3))" >&2
    gopath="$cache/gopath"
    rm -rf "$gopath" "$cache"/sarama_testee-* "$cache"/build.*  # earlier builds
    mkdir -p "$gopath/src/github.com/Shopify" "$gopath/src/kwire/sarama_testee"
    cp -r "$sarama_src" "$gopath/src/github.com/Shopify/sarama"
    cp "$peer_shim" "$here/shim/kwire_testee.go" "$gopath/src/github.com/Shopify/sarama/"
    cp "$here/main.go" "$gopath/src/kwire/sarama_testee/"
    (cd "$gopath/src/kwire/sarama_testee" &&
     GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= CGO_CFLAGS="-O2 -w" \
       GOCACHE="$cache/gocache" go build -o "$cache/build.tmp" . ) >&2
    mv -f "$cache/build.tmp" "$bin"  # a concurrent run.sh finds it whole or not at all
  fi
  exec 9>&-
fi

if [ "$build_only" = 1 ]; then
  echo "$bin"
  exit 0
fi
exec "$bin"
