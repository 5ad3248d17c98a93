#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/event.hpp>

#include <utility>

namespace memtune::cuda {

Event::Event() { MEMTUNE_CU(driver_api().cuEventCreate(&event_, CU_EVENT_DEFAULT)); }

Event::~Event() { destroy(); }

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    destroy();
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(CUstream stream) const { MEMTUNE_CU(driver_api().cuEventRecord(event_, stream)); }

void Event::synchronize() const { MEMTUNE_CU(driver_api().cuEventSynchronize(event_)); }

bool Event::done() const {
  const CUresult r = driver_api().cuEventQuery(event_);
  if (r == CUDA_ERROR_NOT_READY) return false;
  MEMTUNE_CU(r);
  return true;
}

void Event::destroy() noexcept {
  if (!event_) return;
  MEMTUNE_CU_NOTHROW(driver_api().cuEventDestroy(event_));
  event_ = nullptr;
}

double elapsed_seconds(const Event& start, const Event& stop) {
  float ms = 0.0F;
  MEMTUNE_CU(driver_api().cuEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

} // namespace memtune::cuda
