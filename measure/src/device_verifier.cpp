#include <memtune/cuda/launch.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/measure/device_verifier.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace memtune {
namespace embedded {
extern const char compare_rule_cuh[]; // compare_rule.cuh, embedded at build time
}
namespace {

constexpr std::size_t kResults = 4; // the compare kernel's result words

// result[0] += number of lanes out of tolerance; result[1] = max error
// (as the bits of a non-negative double, whose order matches the integers');
// result[2] = min lane index out of tolerance; result[3] = max |expected|
// (bits, NaN left out: the tolerance reported when every lane passes).
// `lane` and `ref_lane` are memtune::ElementType's values of the output's and
// the expected values' lane types: one kernel for every type (the switch is
// uniform per launch). The rule itself is compare_rule.cuh, prepended to this
// source.
constexpr const char* kCompareKernel = R"(
extern "C" __global__ void memtune_compare(const void* __restrict__ out, int lane, const void* __restrict__ ref,
                                           int ref_lane, long long n, double abs_tol, double rel_tol,
                                           int poison_agrees, unsigned long long* result) {
  unsigned long long bad = 0, first = ~0ULL;
  double worst = 0.0, largest = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double r = memtune_lane_value(ref, ref_lane, i), o = memtune_lane_value(out, lane, i);
    if (r == r) largest = fmax(largest, fabs(r));
    double err = fabs(o - r);
    if (!memtune_element_passes(o, r, abs_tol, rel_tol, poison_agrees)) {
      ++bad;
      if ((unsigned long long)i < first) first = (unsigned long long)i;
      if (err != err) err = __longlong_as_double(0x7ff0000000000000LL); // NaN counts as infinite
    } else if (err != err) {
      err = 0.0; // both poisoned: agree
    }
    worst = fmax(worst, err);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    first = min(first, __shfl_down_sync(0xffffffffu, first, offset));
    worst = fmax(worst, __shfl_down_sync(0xffffffffu, worst, offset));
    largest = fmax(largest, __shfl_down_sync(0xffffffffu, largest, offset));
  }
  if ((threadIdx.x & 31) == 0) {
    if (bad) atomicAdd(&result[0], bad);
    atomicMax(&result[1], (unsigned long long)__double_as_longlong(worst));
    if (first != ~0ULL) atomicMin(&result[2], first);
    atomicMax(&result[3], (unsigned long long)__double_as_longlong(largest));
  }
}
)";
static_assert(static_cast<int>(ElementType::f32) == 0 && static_cast<int>(ElementType::f64) == 1 &&
                  static_cast<int>(ElementType::i8) == 2 && static_cast<int>(ElementType::i64) == 8 &&
                  static_cast<int>(ElementType::u64) == 9,
              "memtune_lane_value's type codes follow ElementType");

} // namespace

CompareKernel::CompareKernel(const UploadContext& context)
    : kernel_(std::string(embedded::compare_rule_cuh) + kCompareKernel, "memtune_compare", "memtune_compare.cu", context) {}

DeviceVerifier::DeviceVerifier(std::span<const double> expected, ElementType type, Tolerance tolerance,
                               std::shared_ptr<const CompareKernel> kernel, bool poison_agrees)
    : n_(static_cast<std::int64_t>(expected.size())), type_(lane_type(type)), tolerance_(tolerance),
      poison_agrees_(poison_agrees),
      expected_(expected.size_bytes()),
      result_(kResults * sizeof(unsigned long long)), host_result_(kResults * sizeof(unsigned long long)),
      kernel_(std::move(kernel)) {
  expected_.upload(expected.data(), expected.size_bytes());
}

DeviceVerifier::DeviceVerifier(CUdeviceptr reference, std::int64_t lanes, ElementType type, Tolerance tolerance,
                               std::shared_ptr<const CompareKernel> kernel, bool poison_agrees, CUstream stream)
    : n_(lanes), type_(lane_type(type)), expected_type_(lane_type(type)), tolerance_(tolerance),
      poison_agrees_(poison_agrees),
      expected_(static_cast<std::size_t>(lanes) * element_size(lane_type(type))),
      result_(kResults * sizeof(unsigned long long)), host_result_(kResults * sizeof(unsigned long long)),
      kernel_(std::move(kernel)) {
  const std::size_t bytes = static_cast<std::size_t>(lanes) * element_size(expected_type_);
  if (bytes > 0) MEMTUNE_CU(cuda::driver_api().cuMemcpyDtoDAsync(expected_.get(), reference, bytes, stream));
  MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(stream));
}

DeviceVerifier::DeviceVerifier(std::span<const double> expected, double tolerance, const UploadContext& context)
    : DeviceVerifier(expected, ElementType::f32, Tolerance{tolerance, 0.0}, std::make_shared<const CompareKernel>(context)) {}

std::int64_t DeviceVerifier::nan_lanes(CUstream stream) {
  // The expected values against themselves with no tolerance and no agreeing
  // poison: a lane fails exactly when it is NaN.
  return compare(expected_.get(), expected_type_, Tolerance{}, false, stream).bad_count;
}

Verification DeviceVerifier::verify(CUdeviceptr out, CUstream stream) {
  return compare(out, type_, tolerance_, poison_agrees_, stream);
}

Verification DeviceVerifier::compare(CUdeviceptr out, ElementType out_lane, Tolerance tolerance, bool poison_agrees_in,
                                     CUstream stream) {
  const cuda::DriverApi& cu = cuda::driver_api();
  constexpr std::size_t word = sizeof(unsigned long long);
  MEMTUNE_CU(cu.cuMemsetD32Async(result_.get(), 0U, 4, stream));                   // count, max error
  MEMTUNE_CU(cu.cuMemsetD32Async(result_.get() + 2 * word, ~0U, 2, stream));       // first bad
  MEMTUNE_CU(cu.cuMemsetD32Async(result_.get() + 3 * word, 0U, 2, stream));        // max |expected|
  CUdeviceptr ref = expected_.get(), res = result_.get();
  long long n = n_;
  int type = static_cast<int>(out_lane), ref_type = static_cast<int>(expected_type_);
  double abs_tol = tolerance.abs, rel_tol = tolerance.rel;
  int poison_agrees = poison_agrees_in ? 1 : 0;
  void* args[] = {&out, &type, &ref, &ref_type, &n, &abs_tol, &rel_tol, &poison_agrees, &res};
  const unsigned blocks = static_cast<unsigned>(std::clamp<std::int64_t>((n_ + 255) / 256, 1, 4096));
  LaunchSpec launch;
  launch.grid.x = blocks;
  launch.block.x = 256;
  cuda::launch_kernel(kernel_->function(), launch, stream, args);
  MEMTUNE_CU(cu.cuMemcpyDtoHAsync(host_result_.get(), result_.get(), kResults * word, stream));
  MEMTUNE_CU(cu.cuStreamSynchronize(stream));

  const auto r = host_result_.as<const unsigned long long>();
  Verification v;
  v.bad_count = static_cast<std::int64_t>(r[0]);
  std::memcpy(&v.max_abs_error, &r[1], sizeof(double));
  v.first_bad = r[2] == std::numeric_limits<unsigned long long>::max() ? -1 : static_cast<std::int64_t>(r[2]);
  v.ok = v.bad_count == 0;
  const auto allowed = [&](double ref) { return tolerance.abs + tolerance.rel * std::fabs(ref); };
  if (v.first_bad >= 0 && v.first_bad < n_) {
    std::byte ref[sizeof(double)];
    const std::size_t size = element_size(expected_type_);
    MEMTUNE_CU(cu.cuMemcpyDtoH(ref, expected_.get() + static_cast<CUdeviceptr>(v.first_bad) * size, size));
    v.tolerance = allowed(lane_value(expected_type_, ref));
  } else {
    double largest = 0.0;
    std::memcpy(&largest, &r[3], sizeof(double));
    v.tolerance = allowed(largest);
  }
  return v;
}

} // namespace memtune
