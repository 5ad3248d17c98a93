#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/filter_kernel.hpp>

#include <stdexcept>

namespace memtune::templates {

FilterKernel::FilterKernel(Choice choice, std::span<const float> taps)
    : choice_(std::move(choice)), taps_(static_cast<int>(taps.size())) {
  const cuda::Module::Global g = choice_.module->global("memtune_filter_taps");
  if (g.bytes != taps.size() * sizeof(float))
    throw std::invalid_argument("the kernel was compiled for " + std::to_string(g.bytes / sizeof(float)) +
                                " taps, not " + std::to_string(taps.size()));
  MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(g.address, taps.data(), g.bytes));
}

void FilterKernel::launch(CUstream stream, CUdeviceptr in, CUdeviceptr out, std::int64_t n) const {
  const Problem problem = filter_description().complete({{"n", n}, {"taps", taps_}});
  if ((in | out) % 16 != 0 && choice_.config.at("vec") > 1)
    throw std::invalid_argument("filter: in/out must be 16-byte aligned for vec=" +
                                std::to_string(choice_.config.at("vec")));
  const LaunchSpec l = filter_description().launch(choice_.config, problem, choice_.target);
  int n_arg = static_cast<int>(n);
  int seg_arg = static_cast<int>(filter_segment_length(n, choice_.config.at("packing")));
  void* args[] = {&in, &out, &n_arg, &seg_arg};
  MEMTUNE_CU(cuda::driver_api().cuLaunchKernel(choice_.function, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y,
                                               l.block.z, static_cast<unsigned>(l.dynamic_smem_bytes), stream, args,
                                               nullptr));
}

} // namespace memtune::templates
