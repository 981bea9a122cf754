// Debian's FAISS 1.7.3 lacks the namespace-level idx_t that faiss-node's source expects (added in 1.7.4).
#pragma once
#include <cstdint>
namespace faiss { using idx_t = int64_t; }
