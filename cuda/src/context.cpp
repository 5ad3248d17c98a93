#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>

#include <utility>

namespace memtune::cuda {

Context::Context(int ordinal) {
  const DriverApi& cu = driver_api();
  MEMTUNE_CU(cu.cuDeviceGet(&device_, ordinal));
  MEMTUNE_CU(cu.cuDevicePrimaryCtxRetain(&context_, device_));
  make_current();
}

Context::~Context() { release(); }

Context::Context(Context&& other) noexcept
    : device_(other.device_), context_(std::exchange(other.context_, nullptr)) {}

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

void Context::make_current() const { MEMTUNE_CU(driver_api().cuCtxSetCurrent(context_)); }

void Context::synchronize() const {
  // cuCtxSynchronize acts on the calling thread's current context, which
  // other code may have changed: synchronise this one.
  make_current();
  MEMTUNE_CU(driver_api().cuCtxSynchronize());
}

void Context::release() noexcept {
  if (!context_) return;
  MEMTUNE_CU_NOTHROW(driver_api().cuDevicePrimaryCtxRelease(device_));
  context_ = nullptr;
}

} // namespace memtune::cuda
