#pragma once
// A non-blocking CUDA stream. Move-only; destroyed in the destructor, which
// never throws.
#include <cuda.h>

namespace memtune::cuda {

class Stream {
public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void synchronize() const;
  [[nodiscard]] CUstream get() const { return stream_; }

private:
  void destroy() noexcept;
  CUstream stream_ = nullptr;
};

} // namespace memtune::cuda
