#!/bin/bash -eu
# ClusterFuzzLite build: the shared OSS-Fuzz build script of the repository.
exec "$SRC/kwire/fuzz/oss-fuzz-build.sh"
