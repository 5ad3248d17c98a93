#pragma once
namespace memtune_test {
template <bool ACCUMULATE, typename T> __device__ inline T axpy(T a, T x, T y) { return ACCUMULATE ? a * x + y : a * x; }
} // namespace memtune_test
