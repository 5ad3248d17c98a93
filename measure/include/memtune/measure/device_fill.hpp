#pragma once
// Inputs filled on the GPU. A worker used to fill each input on the host and
// copy it over: 0.26 s for the fdtd's 256 MB on an H200 host, as long as its
// driver's start, on every GPU of a run and before any candidate. A small
// kernel writes the same values where they are used (fill_rule.cuh is both
// sides' rule, so a host copy made later for a C++ reference has the same
// bits), at the GPU's write speed. The fills it cannot follow (custom,
// sum_abs, 16-bit floats: description_detail::fill_rule) stay on the host.
#include <memtune/description/fill.hpp>
#include <memtune/measure/internal_kernel.hpp>

#include <cuda.h>

namespace memtune {

// The fill kernel, compiled (through the cache) and loaded into the current
// context once per workload.
class FillKernel {
public:
  explicit FillKernel(const UploadContext& context);
  // rule.values lanes at `out`, stream-ordered on `stream`.
  void fill(CUdeviceptr out, const description_detail::FillRule& rule, CUstream stream) const;

private:
  InternalKernel kernel_;
};

} // namespace memtune
