#!/usr/bin/env bash
# The Apache Kafka testee for kwire's conformance runner (conformance/README.md, "Testing
# another implementation: the testee protocol"): Kafka's own message classes from
# org.apache.kafka:kafka-clients behind the protocol, at the release of the first line of
# tools/kafka-releases.txt (4.4.0), with a second JVM on the 3.9 line's release (3.9.2) for
# the versions 4.x removed. Builds with Maven on first use (into target/kafka-<version>/
# beside pom.xml), then execs java.
#   kwire conformance --testee conformance/testees/apache-kafka/run.sh conformance/vectors
# See conformance/testees/apache-kafka/README.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: conformance/testees/apache-kafka/run.sh [--help] [--build-only] [--versions] [--generate]
  Builds the testee (Maven, Java 17+) into target/kafka-<version>/ beside pom.xml, once for
  the release kwire follows and once for the older release that answers the versions it
  removed, unless builds of the same sources are there; then execs java: it speaks the
  testee protocol (version 1) on stdin/stdout and hands a request for a version its release
  lacks to the older release's JVM (started on first use). Maven runs offline (-o) when its
  local repository has everything, else online (the first build downloads kafka-clients,
  jackson-databind and Maven's plugins from Maven Central). Build messages go to stderr.
  --build-only  build (or find) the testee, print its java command line and exit
  --versions    print the API keys and versions of the release and exit
  --generate    write the java vector set (conformance/vectors/java.jsonl) to stdout: seeded
                random messages of every API, version and direction, written by Kafka
  Environment: JAVA (default: java), MVN (default: mvn), KWIRE_TESTEE_JAVA_OPTS (extra JVM
  options), KWIRE_TESTEE_KAFKA (default: tools/kafka-releases.txt's first release),
  KWIRE_TESTEE_KAFKA_FALLBACK (default: its 3.9 release; "none": no second JVM).
USAGE
}

build_only=0
mode=serve
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --build-only) build_only=1 ;;
    --versions) mode=versions ;;
    --generate) mode=generate ;;
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

pins="$here/../../../tools/kafka-releases.txt"
pin() {  # the kafka-clients version of a release line ("" = the first line)
  awk -v rel="$1" '!/^#/ && NF == 3 && (rel == "" || $1 == rel) {print $2; exit}' "$pins"
}
kafka="${KWIRE_TESTEE_KAFKA:-$(pin "")}"
fallback="${KWIRE_TESTEE_KAFKA_FALLBACK:-$(pin 3.9)}"
[ "$fallback" = none ] && fallback=""
if [ -z "$kafka" ]; then
  echo "run.sh: no Kafka release in $pins" >&2
  exit 2
fi

# Prints the class path of the testee built against kafka-clients $1, building it first
# unless a build of the same inputs is there: pom.xml, the sources, the version and the JDK
# (its resolved path and release file; cheaper than starting it for -version).
jdk="$(readlink -f "$(command -v "$java")")"
build() {
  local version="$1" target="$here/target/kafka-$1" stamp
  stamp="$( { cat "$here/pom.xml"
              find "$here/src" -type f -name '*.java' -print0 | LC_ALL=C sort -z | xargs -0 cat
              echo "$version $jdk"
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
      echo "run.sh: building the Apache Kafka testee on kafka-clients $version in $target" >&2
      rm -f "$target"/build-*
      local goals=(compile dependency:build-classpath -Dkafka.version="$version"
                   -Dtestee.build.directory="$target" -Dmdep.outputFile="$target/classpath.txt"
                   -Dmdep.includeScope=runtime)
      # Offline first (no network once the local repository has everything), then online.
      # (Maven 3.8 writes colour codes even with -B; they are filtered out.)
      if ! (cd "$here" && "$mvn" -q -B -o "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >/dev/null; then
        echo "run.sh: offline build failed; building online (downloads from Maven Central)" >&2
        if ! (cd "$here" && "$mvn" -q -B "${goals[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') >&2; then
          echo "run.sh: the build on kafka-clients $version failed" >&2
          exit 2
        fi
      fi
      echo "$target/classes:$(cat "$target/classpath.txt")" > "$target/build-$stamp.tmp"
      mv -f "$target/build-$stamp.tmp" "$target/build-$stamp"  # whole or not at all
    fi
    exec 9>&-
  fi
  cat "$target/build-$stamp"
}

# Start-up matters more than peak speed (the runner waits 60 s for the hello, and restarts
# the testee after a timeout): C1 only, class data sharing, the serial collector.
opts=(-XX:TieredStopAtLevel=1 -Xshare:auto -XX:+UseSerialGC -Xss16m
      -Dfile.encoding=UTF-8 ${KWIRE_TESTEE_JAVA_OPTS:-})
props=()
if [ -n "$fallback" ] && [ "$mode" = serve ]; then
  fallback_cp="$(build "$fallback")"
  fallback_cmd=("$java" "${opts[@]}" -cp "$fallback_cp" kwire.testee.Testee)
  props=(-Dkwire.testee.fallback="$(IFS=$'\t'; echo "${fallback_cmd[*]}")"
         -Dkwire.testee.fallback.release="$fallback")
fi
classpath="$(build "$kafka")"
cmd=("$java" "${opts[@]}" "${props[@]}" -cp "$classpath" kwire.testee.Testee)

if [ "$build_only" = 1 ]; then
  printf '%q ' "${cmd[@]}"
  echo
  exit 0
fi
if [ "$mode" = versions ]; then
  exec "${cmd[@]}" --versions
fi
if [ "$mode" = generate ]; then
  exec "${cmd[@]}" --generate
fi
exec "${cmd[@]}"
