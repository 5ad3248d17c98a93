#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/stream.hpp>

#include <utility>

namespace memtune::cuda {

Stream::Stream() { MEMTUNE_CU(driver_api().cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING)); }

Stream::~Stream() { destroy(); }

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    destroy();
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { MEMTUNE_CU(driver_api().cuStreamSynchronize(stream_)); }

void Stream::destroy() noexcept {
  if (!stream_) return;
  MEMTUNE_CU_NOTHROW(driver_api().cuStreamDestroy(stream_));
  stream_ = nullptr;
}

} // namespace memtune::cuda
