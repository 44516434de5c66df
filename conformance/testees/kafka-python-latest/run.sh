#!/usr/bin/env bash
# The newest-kafka-python testee for kwire's conformance runner (conformance/README.md,
# "Testing another implementation: the testee protocol"): the kafka-python testee's own
# testee.py (conformance/testees/kafka-python/testee.py) run with the newest kafka-python
# from PyPI (requirements.txt: pinned with hashes) in a venv in a cache directory.
#   kwire conformance --testee conformance/testees/kafka-python-latest/run.sh conformance/vectors
# See conformance/testees/kafka-python-latest/README.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/kafka-python-latest/run.sh [--help] [--build-only] [testee.py options]
  Creates a venv with the kafka-python of requirements.txt (pip install --require-hashes)
  in a cache directory, unless one made from the same requirements.txt and Python is
  there, then execs conformance/testees/kafka-python/testee.py with it: it speaks the
  testee protocol (version 1) on stdin/stdout. pip's messages go to stderr. The first run
  downloads kafka-python from PyPI (a few seconds): create the venv first with
  --build-only, as the runner waits 60 s for the hello.
  --build-only  create (or find) the venv, print its python's path and exit
  Other options go to testee.py (--list-supported, --kafka-version, --help).
  Python: $KWIRE_PYTHON, else python3 (>= 3.8, with the venv module).
  Cache: $KWIRE_TESTEE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwire/testee-kafka-python-latest.
  Memory: the testee runs under ulimit -v $KWIRE_TESTEE_MEMORY_KB (default 4194304, 4 GiB):
  a hostile count that makes kafka-python allocate gigabytes ends in a MemoryError
  (answered "crashed") instead of swapping the machine.
USAGE
}

build_only=0
args=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --build-only) build_only=1 ;;
    *) args+=("$arg") ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
testee="$here/../kafka-python/testee.py"
python="${KWIRE_PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "run.sh: no $python (set KWIRE_PYTHON)" >&2; exit 2; }
[ -f "$testee" ] || { echo "run.sh: missing $testee" >&2; exit 2; }

cache="${KWIRE_TESTEE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwire/testee-kafka-python-latest}"
# The venv's name depends on what it is made from.
stamp="$( { cat "$here/requirements.txt"; "$python" -c 'import sys; print(sys.version)'
            command -v "$python"; } | sha256sum | cut -c1-16)"
venv="$cache/venv-$stamp"

# A venv counts once pip has finished in it (the marker), not merely when it exists.
ready="$venv/.kwire-requirements"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$ready" ]; then
  mkdir -p "$cache"
  exec 9>"$cache/lock"
  flock 9
  if [ ! -x "$venv/bin/python" ] || [ ! -f "$ready" ]; then
    echo "run.sh: creating the kafka-python venv in $venv" >&2
    rm -rf "$cache"/venv-* "$cache"/build.*  # earlier venvs
    "$python" -m venv "$cache/build.tmp" >&2
    "$cache/build.tmp/bin/python" -m pip install --quiet --disable-pip-version-check \
      --no-input --require-hashes -r "$here/requirements.txt" >&2
    cp "$here/requirements.txt" "$cache/build.tmp/.kwire-requirements"
    mv "$cache/build.tmp" "$venv"  # a concurrent run.sh finds it whole or not at all
  fi
  exec 9>&-
fi

if [ "$build_only" = 1 ]; then
  echo "$venv/bin/python"
  exit 0
fi
ulimit -v "${KWIRE_TESTEE_MEMORY_KB:-4194304}"
exec "$venv/bin/python" "$testee" "${args[@]}"
