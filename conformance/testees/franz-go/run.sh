#!/usr/bin/env bash
# The franz-go (kmsg) testee for kwire's conformance runner (conformance/README.md,
# "Testing another implementation: the testee protocol"): builds franz_go_testee against
# github.com/twmb/franz-go/pkg/kmsg at the version pinned in go.mod / go.sum (from the Go
# module proxy) in a cache directory, and execs it.
#   kwire conformance --testee conformance/testees/franz-go/run.sh conformance/vectors
# See conformance/testees/franz-go/README.md; the cache, --build-only and the choice of
# Go are ../gotestee/build.sh's.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/franz-go/run.sh [--help] [--build-only]
  Builds the franz-go (kmsg) testee (Go modules: kmsg as pinned by go.mod and go.sum,
  downloaded through GOPROXY, default proxy.golang.org, into the Go module cache) into
  a cache directory, unless a binary built from the same sources is there, then execs
  it: it speaks the testee protocol (version 1) on stdin/stdout. Build messages go to
  stderr. Build first with --build-only: the first build (download + compile) can
  outlast the runner's hello timeout.
  --build-only  build (or find) the binary, print its path and exit
  Cache: $KWIRE_TESTEE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwire/testee-franz-go.
  Needs Go >= 1.26 (kmsg v1.15.1's go.mod says go 1.26.0): $KWIRE_GO, else the first
  go on PATH or /usr/local/go/bin/go that is new enough; a Go 1.21-1.25 downloads the
  1.26 toolchain from the module proxy itself (GOTOOLCHAIN=auto).
  Environment of the testee: KWIRE_TESTEE_FRANZ_GO_READ=safe|unsafe|both (kmsg's
  ReadFrom, UnsafeReadFrom, or both compared), KWIRE_TESTEE_FRANZ_GO_MEM_MB (worker
  memory cap, default 2048).
USAGE
}

testee=franz-go
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../gotestee/build.sh"
gotestee_args "$@"
gotestee_module_go

sources() { cat "$here"/go.mod "$here"/go.sum "$here"/main.go "$here"/adapter/*.go; }

# In this folder: -mod=readonly: go.mod and go.sum are the pins, never rewritten
# (-buildvcs=false: no git stamp, the build does not depend on the checkout); GOPROXY and
# GOMODCACHE are the user's (default proxy.golang.org, ~/go/pkg/mod). Nothing is written
# into the source tree.
build() {
  cd "$here"
  GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=auto CGO_ENABLED=0 \
    go build -trimpath -o "$1" .
}

gotestee_build franz_go_testee
exec "$bin"
