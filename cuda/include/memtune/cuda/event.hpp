#pragma once
// A CUDA event for timing. Move-only; destroyed in the destructor, which
// never throws.
#include <cuda.h>

namespace memtune::cuda {

class Event {
public:
  Event();
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(CUstream stream) const;
  void synchronize() const;
  // True once the work before record() has finished.
  [[nodiscard]] bool done() const;
  [[nodiscard]] CUevent get() const { return event_; }

private:
  void destroy() noexcept;
  CUevent event_ = nullptr;
};

// [seconds] between two recorded events (resolution about 0.5 us).
double elapsed_seconds(const Event& start, const Event& stop);

} // namespace memtune::cuda
