#!/usr/bin/env bash
# Builds faiss-node's addon against Debian's static libfaiss, because its own install script
# downloads from GitHub, which this project cannot reach.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pkg="$root/node_modules/faiss-node"
work="$root/node_modules/.cache/faiss-build"
rm -rf "$work" && mkdir -p "$work"
cp "$here/binding.gyp" "$here/faiss-compat.h" "$pkg/src/faiss.cc" "$work/"
cd "$work"
"$root/node_modules/.bin/node-gyp" rebuild --silent --nodedir="$(dirname "$(dirname "$(command -v node)")")" >/dev/null
mkdir -p "$pkg/build/Release"
cp "$work/build/Release/faiss-node.node" "$pkg/build/Release/faiss-node.node"
