#include <memtune/copy_ceiling.hpp>
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>

namespace memtune {

CopyCeiling measure_copy_ceiling(Timer& timer, std::size_t bytes) {
  cuda::DeviceBuffer src(bytes), dst(bytes);
  // Never time a copy of zeros; the pattern's value does not matter.
  src.fill_u32(0x3F000000U, timer.stream());
  const cuda::DriverApi& cu = cuda::driver_api();
  CopyCeiling c;
  c.bytes = bytes;
  c.timing = timer.time([&](CUstream s) { MEMTUNE_CU(cu.cuMemcpyDtoDAsync(dst.get(), src.get(), bytes, s)); });
  c.gbps = 2.0 * static_cast<double>(bytes) / c.timing.median_s / 1e9;
  return c;
}

} // namespace memtune
