#pragma once
// The device's primary context, retained for this object's lifetime and made
// current on the constructing thread. Move-only; the destructor never throws.
#include <cuda.h>

namespace memtune::cuda {

class Context {
public:
  explicit Context(int ordinal = 0);
  ~Context();
  Context(Context&& other) noexcept;
  Context& operator=(Context&& other) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Makes the context current on the calling thread (worker threads need it).
  void make_current() const;
  void synchronize() const;
  [[nodiscard]] CUdevice device() const { return device_; }
  [[nodiscard]] CUcontext get() const { return context_; }

private:
  void release() noexcept;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

} // namespace memtune::cuda
