#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/device_verifier.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace memtune {
namespace {

// result[0] += number of elements out of tolerance; result[1] = max error
// (as the bits of a non-negative double, whose order matches the integers');
// result[2] = min index out of tolerance.
constexpr const char* kCompareSource = R"(
extern "C" __global__ void memtune_compare(const float* __restrict__ out, const double* __restrict__ ref,
                                           long long n, double tol, unsigned long long* result) {
  unsigned long long bad = 0, first = ~0ULL;
  double worst = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double err = fabs((double)out[i] - ref[i]);
    if (!(err <= tol)) {            // written so that NaN fails
      ++bad;
      if ((unsigned long long)i < first) first = (unsigned long long)i;
      if (err != err) err = __longlong_as_double(0x7ff0000000000000LL); // NaN counts as infinite
    }
    worst = fmax(worst, err);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    first = min(first, __shfl_down_sync(0xffffffffu, first, offset));
    worst = fmax(worst, __shfl_down_sync(0xffffffffu, worst, offset));
  }
  if ((threadIdx.x & 31) == 0) {
    if (bad) atomicAdd(&result[0], bad);
    atomicMax(&result[1], (unsigned long long)__double_as_longlong(worst));
    if (first != ~0ULL) atomicMin(&result[2], first);
  }
}
)";

} // namespace

DeviceVerifier::DeviceVerifier(std::span<const double> reference, double tolerance, const UploadContext& context)
    : n_(static_cast<std::int64_t>(reference.size())), tolerance_(tolerance),
      reference_(reference.size_bytes()), result_(3 * sizeof(unsigned long long)),
      host_result_(3 * sizeof(unsigned long long)) {
  reference_.upload(reference.data(), reference.size_bytes());
  CompileRequest request;
  request.source = kCompareSource;
  request.source_name = "memtune_compare.cu";
  request.name_expression = "memtune_compare";
  request.compute_capability = context.compute_capability;
  const CompileResult compiled = compile_cached(request, context.cache);
  if (!compiled.ok) throw std::logic_error("the verification kernel does not compile:\n" + compiled.log);
  module_ = cuda::Module(compiled.cubin);
  compare_ = module_.function(compiled.lowered_name);
}

Verification DeviceVerifier::verify(CUdeviceptr out, CUstream stream) {
  const cuda::DriverApi& cu = cuda::driver_api();
  MEMTUNE_CU(cu.cuMemsetD32Async(result_.get(), 0U, 4, stream));                                  // count, max error
  MEMTUNE_CU(cu.cuMemsetD32Async(result_.get() + 2 * sizeof(unsigned long long), ~0U, 2, stream)); // first bad
  CUdeviceptr ref = reference_.get(), res = result_.get();
  long long n = n_;
  double tol = tolerance_;
  void* args[] = {&out, &ref, &n, &tol, &res};
  const unsigned blocks = static_cast<unsigned>(std::clamp<std::int64_t>((n_ + 255) / 256, 1, 4096));
  MEMTUNE_CU(cu.cuLaunchKernel(compare_, blocks, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  MEMTUNE_CU(cu.cuMemcpyDtoHAsync(host_result_.get(), result_.get(), 3 * sizeof(unsigned long long), stream));
  MEMTUNE_CU(cu.cuStreamSynchronize(stream));

  const auto r = host_result_.as<const unsigned long long>();
  Verification v;
  v.tolerance = tolerance_;
  v.bad_count = static_cast<std::int64_t>(r[0]);
  std::memcpy(&v.max_abs_error, &r[1], sizeof(double));
  v.first_bad = r[2] == std::numeric_limits<unsigned long long>::max() ? -1 : static_cast<std::int64_t>(r[2]);
  v.ok = v.bad_count == 0;
  return v;
}

} // namespace memtune
