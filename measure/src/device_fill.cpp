#include <memtune/measure/device_fill.hpp>

#include <memtune/cuda/launch.hpp>

#include <algorithm>
#include <string>

namespace memtune {
namespace embedded {
extern const char fill_rule_cuh[]; // fill_rule.cuh, embedded at build time
}
namespace {

// One thread a value, in a grid-stride loop; the rule is fill_rule.cuh,
// prepended to this source.
constexpr const char* kFillKernel = R"(
extern "C" __global__ void memtune_fill(void* out, long long values, int mode, int lane_bytes, unsigned long long key,
                                        double lo, double width, unsigned long long lo_bits, unsigned long long span) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < values; i += (long long)gridDim.x * blockDim.x)
    memtune_fill_value(out, i, mode, lane_bytes, key, lo, width, lo_bits, span);
}
)";

} // namespace

FillKernel::FillKernel(const UploadContext& context)
    : kernel_(std::string(embedded::fill_rule_cuh) + kFillKernel, "memtune_fill", "memtune_fill.cu", context) {}

void FillKernel::fill(CUdeviceptr out, const description_detail::FillRule& rule, CUstream stream) const {
  if (rule.values <= 0) return;
  long long values = rule.values;
  int mode = rule.mode, lane_bytes = rule.lane_bytes;
  unsigned long long key = rule.key, lo_bits = rule.lo_bits, span = rule.span;
  double lo = rule.lo, width = rule.width;
  void* args[] = {&out, &values, &mode, &lane_bytes, &key, &lo, &width, &lo_bits, &span};
  LaunchSpec launch;
  launch.grid.x = static_cast<unsigned>(std::clamp<std::int64_t>((rule.values + 255) / 256, 1, 8192));
  launch.block.x = 256;
  cuda::launch_kernel(kernel_.function(), launch, stream, args);
}

} // namespace memtune
