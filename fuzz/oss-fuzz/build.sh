#!/bin/bash -eu
# OSS-Fuzz entry point: the repository's own ClusterFuzzLite build script does the work, so the
# two builds cannot drift apart.
exec "$SRC/lustre-dne-intent/.clusterfuzzlite/build.sh"
