#!/bin/bash -eu
# Fails when a fuzz target needs a shared library that OSS-Fuzz's base-runner image
# does not have. base-runner runs check_build and the fuzzing with /out alone: only the
# C and C++ runtime of its base image is there (glibc's libc, libm, libpthread, libdl,
# librt, the dynamic loader, libstdc++ and libgcc_s), so a target whose `readelf -d`
# names anything else as NEEDED (libisal.so.2, libsnappy.so.1, libabsl_*.so, even zlib)
# fails to start and counts as a broken target. Run by fuzz/oss-fuzz-build.sh at the
# end of every build; tools/oss-fuzz-sim.sh also starts each target in a sandbox that
# holds only these libraries.
#
# Usage: fuzz/oss-fuzz-check-needed.sh [-h|--help] BINARY...
#   Prints each binary's NEEDED list; exit 0 when all are allowed, 1 when one is not,
#   2 on bad usage.
set -o pipefail

usage() {
  echo "Usage: fuzz/oss-fuzz-check-needed.sh [-h|--help] BINARY..."
  echo "Fails (exit 1) when a binary needs a shared library beyond the C/C++ runtime"
  echo "that OSS-Fuzz's base-runner provides (readelf -d, NEEDED entries)."
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") usage >&2; exit 2 ;;
esac
command -v readelf >/dev/null || { echo "oss-fuzz-check-needed: readelf not installed (binutils)" >&2; exit 2; }

# The runtime of base-runner (and of every glibc system): nothing else may be NEEDED.
allowed='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|ld-linux\.so\.2)$'
bad=0
for bin in "$@"; do
  if [ ! -f "$bin" ]; then
    echo "oss-fuzz-check-needed: no file $bin" >&2; exit 2
  fi
  needed=$(readelf -d "$bin" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') ||
    { echo "oss-fuzz-check-needed: $bin is not an ELF file" >&2; exit 2; }
  extra=$(grep -Ev "$allowed" <<<"$needed" | tr '\n' ' ' || true)
  needed=$(tr '\n' ' ' <<<"$needed")
  if [ -n "$extra" ]; then
    echo "oss-fuzz-check-needed: FAIL $(basename "$bin") needs ${extra% }, not in base-runner" \
      "(NEEDED: ${needed% })"
    bad=1
  else
    echo "oss-fuzz-check-needed: ok   $(basename "$bin") NEEDED: ${needed% }"
  fi
done
exit $bad
