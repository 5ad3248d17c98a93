// The aos_soa device source itself, run on the CPU: templates/aos_soa/aos_soa.cu
// is compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, one shared
// array reused block after block). No GPU here, so this is what checks the
// kernel's indexing, tails and guards for every layout, op and item count:
// every output element matches the reference, and nothing outside the output
// (SoA padding, past the end) is written.
#include <memtune/description/random_data.hpp>
#include <memtune/templates/aos_soa.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

// 256 KiB: the largest aos_smem tile the emulated configurations use.
alignas(256) float4 memtune_smem4[65536 / 4 * 4];

#define __shared__ // `extern __shared__ float4 memtune_smem4[]`: the array above
#include "device_code_begin.hpp"
#include "../../templates/aos_soa/aos_soa.cu"
#include "device_code_end.hpp"

using memtune::templates::AosSoaLayout;
using memtune::templates::AosSoaOp;

namespace {

// 256-byte aligned floats, like cuMemAlloc's.
struct Buffer {
  std::size_t count;
  float* data;
  explicit Buffer(std::size_t n) : count(n), data(static_cast<float*>(::operator new(n * sizeof(float) + 256, std::align_val_t(256)))) {}
  ~Buffer() { ::operator delete(data, std::align_val_t(256)); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

template <int OP, int LAYOUT, int F, int BLOCK, int ITEMS>
void run_kernel(const float* in, float* out, long long n, long long pitch) {
  const long long blocks = (n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS);
  cuda_emulation::run_grid({BLOCK, 1, 1}, {static_cast<unsigned>(blocks), 1, 1},
                           [&] { aos_soa_kernel<OP, LAYOUT, F, BLOCK, ITEMS>(in, out, n, pitch); });
}

template <int OP, int LAYOUT, int F, int BLOCK, int ITEMS> void check_one(long long n) {
  CAPTURE(OP);
  CAPTURE(LAYOUT);
  CAPTURE(F);
  CAPTURE(BLOCK);
  CAPTURE(ITEMS);
  CAPTURE(n);
  const auto op = static_cast<AosSoaOp>(OP);
  const bool soa = LAYOUT == static_cast<int>(AosSoaLayout::soa);
  const long long pitch = memtune::templates::aos_soa_pitch(n);
  // The input in AoS order, and as the kernel reads it.
  std::vector<float> input(static_cast<std::size_t>(op == AosSoaOp::write ? n : n * F));
  memtune::fill_random(input, 7 + static_cast<std::uint64_t>(n));
  const std::vector<double> reference = memtune::templates::aos_soa_reference(op, F, input);
  const std::vector<float> device_in =
      (soa && op != AosSoaOp::write) ? memtune::templates::aos_to_soa<float>(input, F, 0.0F) : input;
  Buffer in(device_in.size());
  std::memcpy(in.data, device_in.data(), device_in.size() * sizeof(float));

  // Output with a guard band: NaN where the kernel must write, a sentinel
  // where it must not (SoA padding and 64 floats past the end).
  const long long out_floats = op == AosSoaOp::read ? n : soa ? F * pitch : n * F;
  constexpr long long guard = 64;
  Buffer out(static_cast<std::size_t>(out_floats + guard));
  const float sentinel = 12345.0F;
  for (long long i = 0; i < out_floats + guard; ++i) out.data[i] = i < out_floats ? std::nanf("") : sentinel;
  if (soa && op != AosSoaOp::read)
    for (long long f = 0; f < F; ++f)
      for (long long i = n; i < pitch; ++i) out.data[f * pitch + i] = sentinel;

  run_kernel<OP, LAYOUT, F, BLOCK, ITEMS>(in.data, out.data, n, pitch);

  std::vector<double> got(reference.size());
  if (soa && op != AosSoaOp::read) {
    const std::vector<float> soa_out(out.data, out.data + out_floats);
    const std::vector<float> aos_out = memtune::templates::soa_to_aos<float>(soa_out, n, F);
    for (std::size_t i = 0; i < got.size(); ++i) got[i] = aos_out[i];
    bool padding_intact = true;
    for (long long f = 0; f < F; ++f)
      for (long long i = n; i < pitch; ++i) padding_intact &= out.data[f * pitch + i] == sentinel;
    CHECK(padding_intact);
  } else {
    for (std::size_t i = 0; i < got.size(); ++i) got[i] = out.data[i];
  }
  bool tail_intact = true;
  for (long long i = out_floats; i < out_floats + guard; ++i) tail_intact &= out.data[i] == sentinel;
  CHECK(tail_intact);
  const double tolerance = 2.0 * F * F * 1.2e-7;
  std::int64_t bad = 0, first_bad = -1;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - reference[i]) <= tolerance)) {
      if (first_bad < 0) first_bad = static_cast<std::int64_t>(i);
      ++bad;
    }
  CAPTURE(first_bad);
  CHECK(bad == 0);
}

template <int OP, int LAYOUT, int F, int BLOCK> void check_items(long long n) {
  check_one<OP, LAYOUT, F, BLOCK, 1>(n);
  check_one<OP, LAYOUT, F, BLOCK, 2>(n);
  check_one<OP, LAYOUT, F, BLOCK, 4>(n);
  check_one<OP, LAYOUT, F, BLOCK, 8>(n);
}

template <int OP, int F> void check_layouts(long long n) {
  // aos_vec with an odd items*F is pruned on the host (and static_asserted in
  // the kernel): only even products here.
  check_items<OP, 0, F, 64>(n);
  check_items<OP, 1, F, 64>(n);
  if constexpr (OP != 1) check_items<OP, 2, F, 64>(n);
  check_items<OP, 3, F, 64>(n);
  if constexpr (F % 2 == 0) {
    check_items<OP, 4, F, 64>(n);
  } else {
    check_one<OP, 4, F, 64, 2>(n);
    check_one<OP, 4, F, 64, 4>(n);
    check_one<OP, 4, F, 64, 8>(n);
  }
}

template <int OP> void check_op() {
  for (long long n : {1LL, 31LL, 1003LL, 4099LL}) {
    check_layouts<OP, 1>(n);
    check_layouts<OP, 3>(n);
    check_layouts<OP, 4>(n);
    check_layouts<OP, 8>(n);
  }
  // Bigger blocks: more rounds of the shared-memory staging per thread.
  check_one<OP, 3, 3, 128, 1>(1003);
  check_one<OP, 3, 5, 128, 2>(4099);
  check_one<OP, 1, 7, 128, 8>(4099);
  check_one<OP, 4, 6, 128, 1>(4099);
}

} // namespace

TEST_CASE("aos_soa.cu on the CPU: read, every layout and item count, odd sizes") { check_op<0>(); }
TEST_CASE("aos_soa.cu on the CPU: write, every layout and item count, odd sizes") { check_op<1>(); }
TEST_CASE("aos_soa.cu on the CPU: readwrite, every layout and item count, odd sizes") { check_op<2>(); }
