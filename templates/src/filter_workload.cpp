#include "filter_workload.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/random_data.hpp>
#include <memtune/templates/filter.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace memtune::templates {

FilterWorkload::FilterWorkload(std::int64_t n, int taps, std::uint64_t seed)
    : n_(n), taps_count_(taps), input_(static_cast<std::size_t>(n)), taps_(random_filter_taps(taps, seed + 1)) {
  fill_random(input_, seed);
  reference_ = filter_reference(input_, taps_);
  tolerance_ = filter_tolerance(taps_);
}

void FilterWorkload::upload(const UploadContext& context) {
  const std::size_t bytes = static_cast<std::size_t>(n_) * sizeof(float);
  d_in_ = cuda::DeviceBuffer(bytes);
  d_out_ = cuda::DeviceBuffer(bytes);
  d_in_.upload(input_.data(), bytes);
  verifier_ = DeviceVerifier(reference_, tolerance_, context);
}

void FilterWorkload::prepare(CUmodule module) {
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  MEMTUNE_CU(cuda::driver_api().cuModuleGetGlobal(&address, &bytes, module, "memtune_filter_taps"));
  if (bytes != taps_.size() * sizeof(float))
    throw std::logic_error("filter module was compiled for a different number of taps");
  MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(address, taps_.data(), bytes));
}

std::vector<void*> FilterWorkload::kernel_args(const search::Config& config) {
  arg_in_ = d_in_.get();
  arg_out_ = d_out_.get();
  arg_n_ = static_cast<int>(n_);
  arg_seg_ = static_cast<int>(filter_segment_length(n_, config.at("packing")));
  return {&arg_in_, &arg_out_, &arg_n_, &arg_seg_};
}

void FilterWorkload::poison(CUstream stream) {
  d_out_.fill_u32(0x7FC00000U, stream); // quiet NaN
}

Verification FilterWorkload::verify(CUstream stream) { return verifier_.verify(d_out_.get(), stream); }

} // namespace memtune::templates
