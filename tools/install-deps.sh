#!/usr/bin/env bash
# Installs every Debian 12 package kwire needs to build, test, fuzz and benchmark.
# Idempotent: if everything is already installed it does nothing (no apt-get update).
# Used by the README quick start and by .ci/run. Run as root (or with sudo available).
# Usage: tools/install-deps.sh [-h|--help] [--peers]
set -euo pipefail
peers=0
for arg in "$@"; do
  case "$arg" in
    -h|--help)
      echo "Usage: tools/install-deps.sh [-h|--help] [--peers]"
      echo "Installs the Debian 12 packages kwire needs (apt-get, as root or via sudo);"
      echo "does nothing when all are installed."
      echo "  --peers  also the optional peer benchmark's Go toolchain and sarama"
      echo "           (golang-go, golang-github-shopify-sarama-dev; bench/peers/run.sh and"
      echo "           the sarama conformance testee, conformance/testees/sarama)."
      echo "           Nothing else needs them."
      exit 0 ;;
    --peers) peers=1 ;;
    *) echo "install-deps: unexpected argument '$arg' (tools/install-deps.sh --help)" >&2; exit 2 ;;
  esac
done

packages=(
  # toolchain
  cmake ninja-build g++ pkg-config python3 ccache
  mold                                         # the linker (CMakeLists.txt, KWIRE_LINKER)
  clang-14 llvm-14 libclang-rt-14-dev          # libFuzzer, sanitizers, llvm-cov/llvm-profdata
  # test and benchmark frameworks
  googletest libgtest-dev libgmock-dev libbenchmark-dev libbenchmark-tools python3-scipy
  # core library
  libabsl-dev
  # the JSON mapping of the CLI and the conformance suite (tools/json)
  nlohmann-json3-dev
  # the command line of `kwire` (tools/kwire: options and subcommands)
  libcli11-dev
  # record batches: CRC-32C and the four compression codecs
  libisal-dev libboost-dev zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
  # benchmark-only reference implementation (protobuf varints)
  libprotobuf-dev
  # packaging helpers for the OSS-Fuzz seed corpora
  zip unzip
  # tools/oss-fuzz-sim.sh: each target started in a sandbox with only the out folder and
  # the C/C++ runtime (bwrap), bad_build_check's architecture check (file)
  bubblewrap file
  # the second fuzzing engine: AFL++ (afl-clang-fast, afl-fuzz, its libFuzzer driver
  # /usr/lib/afl/libAFLDriver.a; FUZZING_ENGINE=afl tools/oss-fuzz-sim.sh)
  afl++
  # `kwire pcap` (tools/pcap, optional: built when both are found): libpcap reads pcap and
  # pcapng files, libtins decodes IP/TCP and reassembles TCP streams; tcpdump records the
  # live traffic of tools/proxy/live.sh --capture (tshark, if installed, is compared too)
  libpcap-dev libtins-dev tcpdump
  # conformance/testees/kafka-python: kafka-python 2.0.2 as a conformance testee (ctest
  # kwire.conformance_testee_kafka_python; issue 17)
  python3-kafka
  # the browser tests of the HTML pages (tools/html/browser_test.py, ctest -L browser;
  # issue 34): headless Chromium and its driver, driven by Selenium (~424 MB installed)
  chromium chromium-driver python3-selenium
  # the benchmark charts (bench/charts.py: bench/compare chart, bench/peers/peer_table.py;
  # ctest bench.charts_python; issue 34)
  python3-matplotlib
)
if [ "$peers" = 1 ]; then
  # opt-in: the sarama peer of bench/peers/run.sh and the sarama conformance testee
  # (conformance/testees/sarama; Go, Debian's packaged sources)
  packages+=(golang-go golang-github-shopify-sarama-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Apache Kafka's message definitions: the kafka-clients jars pinned in
# tools/kafka-releases.txt (Maven Central, SHA-256 checked; ~/.cache/kwire/kafka-clients).
# The Python tests check codec/defs and conformance/vectors against them and skip those
# checks when they are absent (no network), so a failed download is a warning here.
if ! python3 "$(dirname "$0")/kafka_defs.py" --jars-only -q >/dev/null; then
  echo "install-deps: warning: the kafka-clients jars of tools/kafka-releases.txt could not" \
       "be fetched; the definition checks will skip" >&2
fi
