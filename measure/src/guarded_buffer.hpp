#pragma once
// Internal to the workload: a device buffer with a guard region before and
// after its data, filled with a pattern no kernel writes by accident. A
// candidate that writes past either end of a buffer (an index off by a block,
// a missing bound check) changes a guard instead of another buffer, and
// check() says where; without guards such a write corrupts a neighbouring
// allocation silently, or shows as a wrong result elsewhere.
//
// Writes further than a guard (64 KiB) from the buffer are not seen here
// (compute-sanitizer's memcheck sees them; an illegal address is a launch
// failure anyway).
#include <memtune/cuda/buffer.hpp>

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>

namespace memtune {

class GuardedBuffer {
public:
  static constexpr std::size_t kGuardBytes = 64 * 1024; // [bytes] each side; keeps the data 64 KiB aligned
  static constexpr unsigned kGuardPattern = 0x7FBADBADU; // a signalling NaN as a float

  GuardedBuffer() = default;
  explicit GuardedBuffer(std::size_t bytes); // [bytes] of data; the guards are filled (synchronously)

  [[nodiscard]] CUdeviceptr get() const { return storage_.get() ? storage_.get() + kGuardBytes : 0; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

  void upload(const void* host, std::size_t bytes); // synchronous
  void fill_u32(unsigned pattern, CUstream stream); // the data only
  void fill_u8(unsigned char pattern, CUstream stream);

  // Whether the guards still hold their pattern (synchronises `stream`): nullopt,
  // or "512 bytes after its end (the first at byte 0 past the end)". Fills
  // them again, so the next launch is checked afresh.
  std::optional<std::string> check(CUstream stream);

private:
  void arm(CUstream stream);
  cuda::DeviceBuffer storage_;
  std::size_t bytes_ = 0;
};

} // namespace memtune
