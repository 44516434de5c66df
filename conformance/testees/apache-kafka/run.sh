#!/usr/bin/env bash
# The Apache Kafka testee for kwire's conformance runner (conformance/README.md, "Testing
# another implementation: the testee protocol"): Kafka's own message classes from
# org.apache.kafka:kafka-clients (version pinned in pom.xml) behind the protocol. Builds with
# Maven on first use (into target/ beside pom.xml), then execs java.
#   kwire conformance --testee conformance/testees/apache-kafka/run.sh conformance/vectors
# See conformance/testees/apache-kafka/README.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/apache-kafka/run.sh [--help] [--build-only] [--versions]
  Builds the testee (Maven, Java 17+) into target/ beside pom.xml unless a build of the same
  sources is there, then execs java: it speaks the testee protocol (version 1) on
  stdin/stdout. Maven runs offline (-o) when its local repository has everything, else
  online (the first build downloads kafka-clients, jackson-databind and Maven's plugins
  from Maven Central). Build messages go to stderr.
  --build-only  build (or find) the testee, print its java command line and exit
  --versions    print the API keys and versions of the pinned kafka-clients and exit
  Environment: JAVA (default: java), MVN (default: mvn), KWIRE_TESTEE_JAVA_OPTS (extra JVM
  options).
USAGE
}

build_only=0
mode=serve
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --build-only) build_only=1 ;;
    --versions) mode=versions ;;
    *) echo "run.sh: unexpected argument '$arg' (conformance/testees/apache-kafka/run.sh --help)" >&2
       exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
java="${JAVA:-java}"
mvn="${MVN:-mvn}"
if ! command -v "$java" >/dev/null; then
  echo "run.sh: the Apache Kafka testee needs a JDK, 17 or newer" \
       "(Debian 12: apt-get install openjdk-17-jdk-headless maven)" >&2
  exit 2
fi

target="$here/target"
# A build is reused while its inputs are the same: pom.xml, the sources and the JDK (its
# resolved path and release file; cheaper than starting it for -version).
jdk="$(readlink -f "$(command -v "$java")")"
stamp="$( { cat "$here/pom.xml"
            find "$here/src" -type f -name '*.java' -print0 | LC_ALL=C sort -z | xargs -0 cat
            echo "$jdk"
            cat "$(dirname "$jdk")/../release" 2>/dev/null || true; } | sha256sum | cut -c1-16)"

if [ ! -f "$target/build-$stamp" ]; then
  mkdir -p "$target"
  exec 9>"$target/.lock"
  flock 9
  if [ ! -f "$target/build-$stamp" ]; then
    if ! command -v "$mvn" >/dev/null; then
      echo "run.sh: building the Apache Kafka testee needs Maven" \
           "(Debian 12: apt-get install maven)" >&2
      exit 2
    fi
    echo "run.sh: building the Apache Kafka testee in $target" >&2
    rm -f "$target"/build-*
    goals=(compile dependency:build-classpath -Dmdep.outputFile="$target/classpath.txt"
           -Dmdep.includeScope=runtime)
    # Offline first (no network once the local repository has everything), then online.
    # (Maven 3.8 writes colour codes even with -B; they are filtered out.)
    if ! (cd "$here" && "$mvn" -q -B -o "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >/dev/null; then
      echo "run.sh: offline build failed; building online (downloads from Maven Central)" >&2
      (cd "$here" && "$mvn" -q -B "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >&2
    fi
    echo "$here/target/classes:$(cat "$target/classpath.txt")" > "$target/build-$stamp.tmp"
    mv -f "$target/build-$stamp.tmp" "$target/build-$stamp"  # whole or not at all
  fi
  exec 9>&-
fi

classpath="$(cat "$target/build-$stamp")"
# Start-up matters more than peak speed (the runner waits 60 s for the hello, and restarts
# the testee after a timeout): C1 only, class data sharing, the serial collector.
opts=(-XX:TieredStopAtLevel=1 -Xshare:auto -XX:+UseSerialGC -Xss16m
      -Dfile.encoding=UTF-8 ${KWIRE_TESTEE_JAVA_OPTS:-})
cmd=("$java" "${opts[@]}" -cp "$classpath" kwire.testee.Testee)

if [ "$build_only" = 1 ]; then
  printf '%q ' "${cmd[@]}"
  echo
  exit 0
fi
if [ "$mode" = versions ]; then
  exec "${cmd[@]}" --versions
fi
exec "${cmd[@]}"
