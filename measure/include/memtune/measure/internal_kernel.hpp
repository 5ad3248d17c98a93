#pragma once
// A kernel of memtune's own (the compare kernel, the fill kernel): its source
// compiled through the compile cache for the GPU of the run and loaded into
// the current context; a source that does not compile is memtune's bug.
#include <memtune/cuda/module.hpp>
#include <memtune/description/verification.hpp>

#include <cuda.h>

#include <string>

namespace memtune {

class InternalKernel {
public:
  // `name`: the extern "C" kernel in `source`; `file_name` names the source in a compile log.
  InternalKernel(std::string source, const std::string& name, const std::string& file_name,
                 const UploadContext& context);
  [[nodiscard]] CUfunction function() const { return function_; }

private:
  cuda::Module module_;
  CUfunction function_ = nullptr;
};

} // namespace memtune
