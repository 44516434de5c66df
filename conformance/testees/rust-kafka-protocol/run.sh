#!/usr/bin/env bash
# The kafka-protocol (Rust crate) testee for kwire's conformance runner
# (conformance/README.md, "Testing another implementation: the testee protocol"): builds
# kafka_protocol_testee with cargo (kafka-protocol =0.18.0, pinned with Cargo.lock) into a
# cache directory, unless a binary built from the same sources is there, and execs it.
#   kwire conformance --testee conformance/testees/rust-kafka-protocol/run.sh conformance/vectors
# See conformance/testees/rust-kafka-protocol/README.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/rust-kafka-protocol/run.sh [--help] [--build-only] [--reject-trailing]
  Builds the kafka-protocol testee (`cargo build --release --locked`, crates from crates.io
  as pinned by Cargo.lock) into a cache directory, unless a binary built from the same
  sources is there, then execs it: it speaks the testee protocol (version 1) on
  stdin/stdout. Build messages go to stderr. The first build takes about 2 minutes (the
  crate's generated code), far longer than the runner waits for the hello: build first with
  --build-only.
  --build-only       build (or find) the binary, print its path and exit
  --reject-trailing  passed to the testee: also refuse bytes after the body, which the crate
                     leaves unread (default: ignore them, as the crate's users do)
  Cache: $KWIRE_TESTEE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwire/testee-rust-kafka-protocol
  (cargo's target directory and the binary). Needs cargo (rustup); the crates come from
  crates.io on the first build (then from ~/.cargo/registry).
  Environment of the testee: KWIRE_TESTEE_HEAP_MB (heap cap of the worker, default 1024),
  KWIRE_TESTEE_BACKTRACE=1 (name the crate's frames of a refused allocation; ~0.1 s a crash).
USAGE
}

build_only=0
pass=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --build-only) build_only=1 ;;
    --reject-trailing) pass+=("$arg") ;;
    *) echo "run.sh: unexpected argument '$arg' (conformance/testees/rust-kafka-protocol/run.sh --help)" >&2
       exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v cargo >/dev/null; then
  echo "run.sh: the kafka-protocol testee needs cargo (https://rustup.rs, or Debian's cargo)" >&2
  exit 2
fi

cache="${KWIRE_TESTEE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/testee-rust-kafka-protocol}"
# The binary's name depends on everything it is built from.
stamp="$( { cat "$here/Cargo.toml" "$here/Cargo.lock" "$here"/src/*.rs
            cargo --version; rustc --version; } | sha256sum | cut -c1-16)"
bin="$cache/kafka_protocol_testee-$stamp"

if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  # One build at a time; cargo's target directory stays in the cache from build to build,
  # so that a change to the testee recompiles the testee, not the crate.
  exec 9>"$cache/lock"
  flock 9
  if [ ! -x "$bin" ]; then
    echo "run.sh: building the kafka-protocol testee in $cache ($(cargo --version))" >&2
    rm -f "$cache"/kafka_protocol_testee-* "$cache"/build.tmp  # earlier builds
    CARGO_TARGET_DIR="$cache/target" CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" \
      cargo build --release --locked --manifest-path "$here/Cargo.toml" >&2
    cp "$cache/target/release/kafka_protocol_testee" "$cache/build.tmp"
    mv -f "$cache/build.tmp" "$bin"  # a concurrent run.sh finds it whole or not at all
  fi
  exec 9>&-
fi

if [ "$build_only" = 1 ]; then
  echo "$bin"
  exit 0
fi
exec "$bin" "${pass[@]}"
