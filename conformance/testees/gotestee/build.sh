# The build and start of kwire's Go conformance testees, sourced by their run.sh
# (../sarama, ../sarama-latest, ../franz-go; README.md here). A run.sh sets `testee`
# (its folder's name) and `here` (its folder), defines
#   usage      its --help text
#   sources    prints what the binary is built from, beyond what every testee hashes
#              (this folder's Go sources, build.sh, the run.sh, `go version`)
#   build OUT  builds the binary into the file OUT (in the cache directory; its output
#              goes to stderr, GOCACHE is the cache directory's gocache)
# then sources this file and calls
#   gotestee_args "$@"       --help, --build-only
#   gotestee_module_go       (module builds) puts a Go >= 1.26, or >= 1.21 that fetches
#                            1.26 (GOTOOLCHAIN=auto), first on PATH
#   gotestee_build PREFIX    builds $cache/PREFIX-<hash of the sources> unless it is
#                            there, sets `bin`; with --build-only prints it and exits
# and execs "$bin". Cache: $KWIRE_TESTEE_CACHE, else
# ${XDG_CACHE_HOME:-~/.cache}/kwire/testee-$testee.

gotestee_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KWIRE_TESTEE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/testee-$testee}"
gotestee_build_only=0

gotestee_args() {
  local arg
  for arg in "$@"; do
    case "$arg" in
      -h|--help) usage; exit 0 ;;
      --build-only) gotestee_build_only=1 ;;
      *) echo "run.sh: unexpected argument '$arg' (conformance/testees/$testee/run.sh --help)" >&2
         exit 2 ;;
    esac
  done
}

# A Go that can build a module asking for go 1.26.0: 1.26 or later directly, else 1.21
# or later, which fetches the 1.26 toolchain from the module proxy. $KWIRE_GO first,
# then go on PATH, then /usr/local/go/bin/go (Debian 12's golang-go, 1.19, is too old).
gotestee_module_go() {
  local cand m go_bin=""
  for cand in ${KWIRE_GO:-} "$(command -v go || true)" /usr/local/go/bin/go; do
    [ -n "$cand" ] && [ -x "$cand" ] || continue
    m="$(GOTOOLCHAIN=local "$cand" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
    if [ -n "$m" ] && [ "$m" -ge 26 ]; then go_bin="$cand"; break; fi
    if [ -z "$go_bin" ] && [ -n "$m" ] && [ "$m" -ge 21 ]; then go_bin="$cand"; fi
  done
  if [ -z "$go_bin" ]; then
    echo "run.sh: the $testee testee needs Go >= 1.26 (or >= 1.21, which fetches 1.26 from" \
         "the module proxy); none found (set KWIRE_GO=/path/to/go)" >&2
    exit 2
  fi
  PATH="$(dirname "$go_bin"):$PATH"
}

gotestee_build() {
  local prefix="$1" stamp
  # The binary's name depends on everything it is built from.
  stamp="$( { sources
              cat "$gotestee_dir"/*.go "$gotestee_dir/go.mod" "$gotestee_dir/build.sh" \
                  "$here/run.sh"
              go version; } | sha256sum | cut -c1-16)"
  bin="$cache/$prefix-$stamp"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    # One build at a time; the build tree's path stays the same from build to build so
    # that Go's build cache (GOCACHE, here) keeps the library's compiled packages.
    exec 9>"$cache/lock"
    flock 9
    if [ ! -x "$bin" ]; then
      echo "run.sh: building the $testee testee in $cache ($(go version | cut -d' ' -f3))" >&2
      rm -f "$cache/$prefix"-* "$cache"/build.*  # earlier builds
      (export GOCACHE="$cache/gocache"; build "$cache/build.tmp") >&2
      mv -f "$cache/build.tmp" "$bin"  # a concurrent run.sh finds it whole or not at all
    fi
    exec 9>&-
  fi
  if [ "$gotestee_build_only" = 1 ]; then
    echo "$bin"
    exit 0
  fi
}
