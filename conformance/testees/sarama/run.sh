#!/usr/bin/env bash
# The sarama testee for kwire's conformance runner (conformance/README.md, "Testing
# another implementation: the testee protocol"): builds sarama_testee against Debian's
# golang-github-shopify-sarama-dev (1.22.1) in a cache directory, offline, and execs it.
#   kwire conformance --testee conformance/testees/sarama/run.sh conformance/vectors
# See conformance/testees/sarama/README.md; the cache and --build-only are
# ../gotestee/build.sh's.
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

testee=sarama
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
. "$here/../gotestee/build.sh"
gotestee_args "$@"

sarama_src=/usr/share/gocode/src/github.com/Shopify/sarama
peer_shim="$here/shim/kwire_peer.go"
if ! command -v go >/dev/null || [ ! -d "$sarama_src" ]; then
  echo "run.sh: the sarama testee needs golang-go and golang-github-shopify-sarama-dev" \
       "(Debian 12: tools/install-deps.sh --peers, or" \
       "apt-get install golang-go golang-github-shopify-sarama-dev)" >&2
  exit 2
fi
[ -f "$peer_shim" ] || { echo "run.sh: missing $peer_shim" >&2; exit 2; }

sources() {
  cat "$here/main.go" "$here/shim/kwire_testee.go" "$peer_shim"
  dpkg-query -W -f='${Version}' golang-github-shopify-sarama-dev 2>/dev/null || true
  ls -l --time-style=+%s "$sarama_src"
}

# A GOPATH (its path stays the same from build to build, for Go's build cache): sarama
# with the shims added, gotestee and main.go; Debian's other packages from /usr/share/gocode.
build() {
  local gopath="$cache/gopath"
  rm -rf "$gopath"
  mkdir -p "$gopath/src/github.com/Shopify" "$gopath/src/kwire/sarama_testee" \
           "$gopath/src/kwire/conformance/testees/gotestee"
  cp -r "$sarama_src" "$gopath/src/github.com/Shopify/sarama"
  cp "$peer_shim" "$here/shim/kwire_testee.go" "$gopath/src/github.com/Shopify/sarama/"
  cp "$gotestee_dir"/*.go "$gopath/src/kwire/conformance/testees/gotestee/"
  cp "$here/main.go" "$gopath/src/kwire/sarama_testee/"
  cd "$gopath/src/kwire/sarama_testee"
  GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= CGO_CFLAGS="-O2 -w" \
    go build -o "$1" .
}

gotestee_build sarama_testee
exec "$bin"
