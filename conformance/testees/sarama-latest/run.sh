#!/usr/bin/env bash
# The newest-sarama testee for kwire's conformance runner (conformance/README.md,
# "Testing another implementation: the testee protocol"): builds the sarama testee's own
# main.go (conformance/testees/sarama/main.go) against github.com/IBM/sarama at the
# version pinned in go.mod / go.sum, in a cache directory, and execs it.
#   kwire conformance --testee conformance/testees/sarama-latest/run.sh conformance/vectors
# See conformance/testees/sarama-latest/README.md; the cache, --build-only and the
# choice of Go are ../gotestee/build.sh's.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/sarama-latest/run.sh [--help] [--build-only]
  Builds the sarama testee (conformance/testees/sarama/main.go) against the newest sarama,
  github.com/IBM/sarama at the version in go.mod (checked against go.sum), into a cache
  directory, unless a binary built from the same sources is there, then execs it: it
  speaks the testee protocol (version 1) on stdin/stdout. Build messages go to stderr.
  The first build downloads the modules (Go module proxy) and takes ~1 min: build first
  with --build-only. Later builds (a changed main.go or shim) take seconds.
  --build-only  build (or find) the binary, print its path and exit
  Cache: $KWIRE_TESTEE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwire/testee-sarama-latest.
  Memory: the testee runs under ulimit -v $KWIRE_TESTEE_MEMORY_KB (default 4194304, 4 GiB),
  so that a hostile count that makes sarama allocate gigabytes ends in the Go runtime's
  "out of memory" (answered "crashed") instead of swapping the machine.
  Needs Go >= 1.26 (sarama's go.mod says go 1.26.0), or a Go >= 1.21 that fetches it
  (GOTOOLCHAIN=auto); $KWIRE_GO names one. Modules come from GOPROXY.
USAGE
}

testee=sarama-latest
here="$(cd "$(dirname "$0")" && pwd)"
main_go="$here/../sarama/main.go"
. "$here/../gotestee/build.sh"
gotestee_args "$@"
gotestee_module_go
[ -f "$main_go" ] || { echo "run.sh: missing $main_go" >&2; exit 2; }

# go.sum pins the modules.
sources() {
  cat "$main_go" "$here"/shim/*.go "$here"/alias/go.mod "$here"/alias/*.go \
      "$here/go.mod" "$here/go.sum"
}

# The build tree (its path stays the same from build to build, for Go's build cache):
# src/ with go.mod, go.sum, alias/ and main.go, src/ibm-sarama/ with sarama's source and
# the shims, gotestee/ (go.mod's replace is ../gotestee, as in the source tree).
build() {
  local src="$cache/src" sarama_dir
  rm -rf "$src" "$cache/gotestee"
  mkdir -p "$src"
  cp "$here/go.mod" "$here/go.sum" "$main_go" "$src/"
  cp -r "$here/alias" "$src/alias"
  cp -r "$gotestee_dir" "$cache/gotestee"
  cd "$src"
  export GOFLAGS=-mod=readonly CGO_ENABLED=0
  # sarama's source, as go.sum pins it (go mod download verifies the hash), copied so
  # that the shims can be compiled into its package (they call unexported functions).
  sarama_dir="$(go mod download -json github.com/IBM/sarama |
                sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$sarama_dir" ] || { echo "run.sh: go mod download github.com/IBM/sarama failed" >&2; exit 1; }
  cp -r "$sarama_dir" "$src/ibm-sarama"
  chmod -R u+w "$src/ibm-sarama"
  cp "$here"/shim/*.go "$src/ibm-sarama/"
  go mod edit -replace github.com/IBM/sarama=./ibm-sarama
  go build -trimpath -o "$1" .
}

gotestee_build sarama_testee
ulimit -v "${KWIRE_TESTEE_MEMORY_KB:-4194304}"
exec "$bin"
