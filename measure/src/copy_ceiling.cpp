#include <memtune/measure/copy_ceiling.hpp>
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
  if (timer.options().flush_l2) c.l2_flush = std::string(to_string(timer.options().flush));
  return c;
}

CopySizes copy_sizes(std::uint64_t bytes_moved, std::size_t l2_bytes) {
  const std::size_t own = static_cast<std::size_t>(bytes_moved / 2) / 4 * 4; // whole 4-byte words
  CopySizes c;
  c.ceiling_bytes = std::max<std::size_t>(own, 2 * l2_bytes);
  if (own > 0 && own < c.ceiling_bytes) c.same_size_bytes = own;
  return c;
}

} // namespace memtune
