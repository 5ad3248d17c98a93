#pragma once
// A loaded CUBIN. Move-only; unloaded in the destructor, which never throws.
#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace memtune::cuda {

class Module {
public:
  Module() = default;
  // Loads a CUBIN image into the current context.
  explicit Module(const std::vector<char>& image);
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // By lowered (mangled) name, as NVRTC reports it.
  [[nodiscard]] CUfunction function(const std::string& lowered_name) const;
  struct Global {
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
  };
  // A __device__ or __constant__ variable, e.g. the filter's coefficients.
  [[nodiscard]] Global global(const std::string& name) const;
  [[nodiscard]] CUmodule get() const { return module_; }
  explicit operator bool() const { return module_ != nullptr; }

private:
  void unload() noexcept;
  CUmodule module_ = nullptr;
};

} // namespace memtune::cuda
