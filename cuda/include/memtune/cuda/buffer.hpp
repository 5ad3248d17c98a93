#pragma once
// Device memory and page-locked host memory. Move-only; freed in the
// destructor, which never throws.
#include <cuda.h>

#include <cstddef>
#include <span>

namespace memtune::cuda {

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes); // [bytes]
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  [[nodiscard]] CUdeviceptr get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

  void upload(const void* host, std::size_t bytes);   // synchronous
  void download(void* host, std::size_t bytes) const; // synchronous
  // Fills with a 32-bit pattern (e.g. a NaN to poison outputs).
  void fill_u32(unsigned pattern, CUstream stream = nullptr);
  // Fills every byte (any size: 1- and 2-byte elements, 0xA5 poison, zeroing).
  void fill_u8(unsigned char pattern, CUstream stream = nullptr);

private:
  void free() noexcept;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

// Pinned host memory: fast, asynchronous device-to-host copies for verification.
class PinnedBuffer {
public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  template <class T> [[nodiscard]] std::span<T> as() const {
    return {static_cast<T*>(ptr_), bytes_ / sizeof(T)};
  }

private:
  void free() noexcept;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

} // namespace memtune::cuda
