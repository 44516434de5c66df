#!/bin/bash -eu
# OSS-Fuzz build for kwire: the shared build script of the repository (also used by
# ClusterFuzzLite, .clusterfuzzlite/build.sh).
exec "$SRC/kwire/fuzz/oss-fuzz-build.sh"
