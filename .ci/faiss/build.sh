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
# faiss-node 0.5.1 never frees the reader of fromBuffer or the writer of toBuffer: each call leaked a
# whole index (the HNSW efSearch round trip, ADR 8, two of them), gigabytes at 1M vectors (issue 17).
# fromBuffer also copied the bytes into a Buffer only to copy them again: it reads them in place.
sed -i 's/auto buffer = Napi::Buffer<uint8_t>::Copy(env, info\[0\].As<Napi::Buffer<uint8_t>>().Data(), info\[0\].As<Napi::Buffer<uint8_t>>().Length());/auto buffer = info[0].As<Napi::Buffer<uint8_t>>();/' faiss.cc
sed -i 's/faiss::VectorIOReader \*reader = new faiss::VectorIOReader();/std::unique_ptr<faiss::VectorIOReader> reader(new faiss::VectorIOReader());/' faiss.cc
sed -i 's/faiss::read_index(reader)/faiss::read_index(reader.get())/' faiss.cc
sed -i 's/faiss::VectorIOWriter \*writer = new faiss::VectorIOWriter();/std::unique_ptr<faiss::VectorIOWriter> writer(new faiss::VectorIOWriter());/' faiss.cc
sed -i 's/faiss::write_index(index_.get(), writer);/faiss::write_index(index_.get(), writer.get());/' faiss.cc
test "$(grep -c 'new faiss::VectorIO' faiss.cc)" = 2 && test "$(grep -c 'std::unique_ptr<faiss::VectorIO' faiss.cc)" = 2
grep -q 'read_index(reader.get())' faiss.cc && grep -q 'write_index(index_.get(), writer.get())' faiss.cc && grep -q 'auto buffer = info\[0\].As<Napi::Buffer<uint8_t>>();' faiss.cc
"$root/node_modules/.bin/node-gyp" rebuild --silent --nodedir="$(dirname "$(dirname "$(command -v node)")")" >/dev/null
mkdir -p "$pkg/build/Release"
cp "$work/build/Release/faiss-node.node" "$pkg/build/Release/faiss-node.node"
