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
# One constructor reference per thread, not per process: the engine keeps its exact indexes on a
# worker thread (ADR 8), and a static shared by two threads crashed the first one that made an index
# from bytes (fromBuffer, read, fromFactory) once the other had loaded the addon.
grep -q 'inline static Napi::FunctionReference \*constructor;' faiss.cc
sed -i 's/inline static Napi::FunctionReference \*constructor;/inline static thread_local Napi::FunctionReference *constructor;/' faiss.cc
grep -q 'inline static thread_local Napi::FunctionReference \*constructor;' faiss.cc
"$root/node_modules/.bin/node-gyp" rebuild --silent --nodedir="$(dirname "$(dirname "$(command -v node)")")" >/dev/null
mkdir -p "$pkg/build/Release"
cp "$work/build/Release/faiss-node.node" "$pkg/build/Release/faiss-node.node"
