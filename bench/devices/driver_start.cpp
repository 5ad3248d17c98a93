// One worker process's driver start (bench/devices/driver_start.sh runs it
// alone and several at once): cuInit, then a context and a first allocation on one GPU.
#include <cuda.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  using clk = std::chrono::steady_clock;
  const auto t0 = clk::now();
  const int dev = argc > 1 ? std::atoi(argv[1]) : 0;
  if (cuInit(0) != CUDA_SUCCESS) { std::puts("cuInit failed"); return 1; }
  const auto t1 = clk::now();
  int count = 0;
  cuDeviceGetCount(&count);
  CUdevice d;
  cuDeviceGet(&d, dev);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, d);
  cuCtxSetCurrent(ctx);
  CUdeviceptr p;
  cuMemAlloc(&p, 1 << 20);
  const auto t2 = clk::now();
  const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
  std::printf("dev %d visible=%s count %d: cuInit %.3f s, context+alloc %.3f s, total %.3f s\n", dev, vis ? vis : "(all)", count,
              std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
              std::chrono::duration<double>(t2 - t0).count());
}
