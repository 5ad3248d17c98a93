#pragma once
// The few CUDA built-ins the template sources use, emulated so that a .cu
// file can be compiled as host C++ and run on the CPU (tests only): one
// std::thread per CUDA thread of a block, a std::barrier for __syncthreads,
// and the blocks of a grid run one after another by the same threads, so the
// kernel's shared memory (a static array) is reused block after block.
//
// The including test defines the qualifier macros (__global__, __shared__, ...)
// for its source, then includes the .cu file.
#include <barrier>
#include <thread>
#include <vector>

namespace cuda_emulation {
struct Index {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local Index threadIdx;
inline thread_local Index blockIdx;
inline std::barrier<>* block_barrier = nullptr;
inline void syncthreads() { block_barrier->arrive_and_wait(); }

// Runs launch() for every block of `grid` (x fastest), with block.x * block.y
// threads; launch calls the kernel with its arguments.
template <class Launch> void run_grid(Index block, Index grid, Launch launch) {
  const unsigned count = block.x * block.y;
  std::barrier<> barrier(count);
  block_barrier = &barrier;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < count; ++t) {
    threads.emplace_back([&, t] {
      threadIdx.x = t % block.x;
      threadIdx.y = t / block.x;
      for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
          for (unsigned bx = 0; bx < grid.x; ++bx) {
            blockIdx = {bx, by, bz};
            launch();
            barrier.arrive_and_wait(); // the next block reuses the shared array
          }
    });
  }
  for (auto& th : threads) th.join();
}
} // namespace cuda_emulation

struct float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
using cuda_emulation::blockIdx;
using cuda_emulation::threadIdx;
