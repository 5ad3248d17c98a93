#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>

#include <utility>

namespace memtune::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  // Zero-byte allocations fail in the driver; keep a valid, distinct pointer.
  MEMTUNE_CU(driver_api().cuMemAlloc(&ptr_, bytes == 0 ? 4 : bytes));
}

DeviceBuffer::~DeviceBuffer() { free(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    free();
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes) MEMTUNE_CU(driver_api().cuMemcpyHtoD(ptr_, host, bytes));
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  if (bytes) MEMTUNE_CU(driver_api().cuMemcpyDtoH(host, ptr_, bytes));
}

void DeviceBuffer::fill_u32(unsigned pattern, CUstream stream) {
  MEMTUNE_CU(driver_api().cuMemsetD32Async(ptr_, pattern, bytes_ / 4, stream));
}

void DeviceBuffer::fill_u8(unsigned char pattern, CUstream stream) {
  if (bytes_) MEMTUNE_CU(driver_api().cuMemsetD8Async(ptr_, pattern, bytes_, stream));
}

void DeviceBuffer::free() noexcept {
  if (!ptr_) return;
  MEMTUNE_CU_NOTHROW(driver_api().cuMemFree(ptr_));
  ptr_ = 0;
  bytes_ = 0;
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  MEMTUNE_CU(driver_api().cuMemAllocHost(&ptr_, bytes == 0 ? 4 : bytes));
}

PinnedBuffer::~PinnedBuffer() { free(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    free();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void PinnedBuffer::free() noexcept {
  if (!ptr_) return;
  MEMTUNE_CU_NOTHROW(driver_api().cuMemFreeHost(ptr_));
  ptr_ = nullptr;
  bytes_ = 0;
}

} // namespace memtune::cuda
