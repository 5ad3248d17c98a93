// The aos_soa device source itself, run on the CPU: templates/aos_soa/aos_soa.cu
// is compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, one shared
// array reused block after block). No GPU here, so this is what checks the
// kernel's indexing, tails and guards for every layout, op and item count:
// every output element matches the reference, and nothing outside the output
// (SoA padding, past the end) is written; and the model's addresses against
// the middle block's.
#include <memtune/description/random_data.hpp>
#include <memtune/model/access_pattern.hpp>
#include <memtune/templates/aos_soa.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <set>
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

// Runs run(in, out, n, pitch) on random structs in LAYOUT's arrangement and
// checks every output against the host reference, the SoA padding and the
// guard past the output.
template <int OP, int LAYOUT, int F, class Run> void check_outputs(long long n, Run run) {
  CAPTURE(OP);
  CAPTURE(LAYOUT);
  CAPTURE(F);
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

  run(in.data, out.data, n, pitch);

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

template <int OP, int LAYOUT, int F, int BLOCK, int ITEMS> void check_one(long long n) {
  CAPTURE(BLOCK);
  CAPTURE(ITEMS);
  check_outputs<OP, LAYOUT, F>(n, run_kernel<OP, LAYOUT, F, BLOCK, ITEMS>);
}

// aos_soa_reference, the kernel candidates are verified against, over `blocks`
// blocks of 256 threads (fewer than n / 256: its grid-stride loop).
template <int OP, int LAYOUT, int F> void check_reference(long long n, unsigned blocks) {
  check_outputs<OP, LAYOUT, F>(n, [&](const float* in, float* out, long long count, long long pitch) {
    cuda_emulation::run_grid({256, 1, 1}, {blocks, 1, 1}, [&] {
      aos_soa_reference<OP, LAYOUT == static_cast<int>(AosSoaLayout::soa), F>(in, out, count, pitch);
    });
  });
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

// [bytes] from each array's base: every float the model's instructions of
// `kind` name (a V-wide access names V floats).
std::set<std::uint64_t> named_bytes(const memtune::AccessPattern& a, memtune::model::AccessKind kind) {
  std::set<std::uint64_t> bytes;
  for (const memtune::GlobalInstruction& g : a.global) {
    if (g.kind != kind) continue;
    for (int warp = 0; warp < a.block_threads / 32; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (std::int64_t it = 0; it < g.iterations; ++it)
          if (const auto address = g.address(warp, lane, it))
            for (int b = 0; b < g.width_bytes; b += 4) bytes.insert(*address + static_cast<std::uint64_t>(b));
  }
  return bytes;
}

// The model's view of a configuration (aos_soa_access.cpp: the block in the
// middle of the array) against that block run alone: the output floats its
// store instructions name are the ones the block writes, and the input floats
// its loads name are the ones the block reads. A read is seen through the
// output it reaches: every input float holds its own position + 1, so
//   write:     S_out[i][f] = (i + 1)(f + 1) names scalar i,
//   readwrite: S_out[i][f] = (p + 1) c_f + 1 names struct float p,
//   read:      out[i] sums F floats, so it runs F times, run f with only
//              field f's floats non-zero: out[i] = p + 1 names p.
// All exact in float (positions below 2^24, c_f a multiple of 1/4). Not seen:
// how often and how wide a float is read, and a float read but never stored
// (none in a block whose elements are all below n).
//
// Where the middle block is the last one and n ends inside it (a grid of one
// or two blocks), the model names its whole tile: the kernel's guards against
// n are not modelled (in SoA a field's elements past its pitch are then the
// next field's first ones). There only the block's elements below n are
// compared; everywhere else the model must name nothing outside them.
template <int OP, int LAYOUT, int F, int BLOCK, int ITEMS> void check_model_addresses(long long n) {
  CAPTURE(OP);
  CAPTURE(LAYOUT);
  CAPTURE(F);
  CAPTURE(BLOCK);
  CAPTURE(ITEMS);
  CAPTURE(n);
  const auto op = static_cast<AosSoaOp>(OP);
  const bool soa = LAYOUT == static_cast<int>(AosSoaLayout::soa);
  const long long pitch = memtune::templates::aos_soa_pitch(n);
  const long long struct_floats = soa ? F * pitch : n * F;
  const auto in_floats = static_cast<std::size_t>(op == AosSoaOp::write ? n : struct_floats);
  const auto out_floats = static_cast<std::size_t>(op == AosSoaOp::read ? n : struct_floats);
  // Field and element of a struct array's float p.
  const auto upitch = static_cast<std::size_t>(pitch);
  const auto field = [&](std::size_t p) { return static_cast<int>(soa ? p / upitch : p % F); };
  const auto element = [&](std::size_t p) { return static_cast<long long>(soa ? p % upitch : p / F); };
  const int runs = op == AosSoaOp::read ? F : 1;

  std::vector<std::unique_ptr<Buffer>> in, out;
  for (int r = 0; r < runs; ++r) {
    in.push_back(std::make_unique<Buffer>(in_floats));
    out.push_back(std::make_unique<Buffer>(out_floats));
    for (std::size_t p = 0; p < in_floats; ++p)
      in[r]->data[p] = (op != AosSoaOp::read || field(p) == r) ? static_cast<float>(p + 1) : 0.0F;
    std::fill(out[r]->data, out[r]->data + out_floats, std::nanf(""));
  }
  const long long tile = static_cast<long long>(BLOCK) * ITEMS;
  const auto blocks = static_cast<unsigned>((n + tile - 1) / tile);
  cuda_emulation::run_block_repeatedly({BLOCK, 1, 1}, {blocks, 1, 1}, {blocks / 2, 0, 0}, runs, [&](int r) {
    aos_soa_kernel<OP, LAYOUT, F, BLOCK, ITEMS>(in[static_cast<std::size_t>(r)]->data,
                                                out[static_cast<std::size_t>(r)]->data, n, pitch);
  });

  // [bytes] from each array's base; a value no input position explains reads as one past the input.
  std::set<std::uint64_t> written, read;
  for (int r = 0; r < runs; ++r)
    for (std::size_t q = 0; q < out_floats; ++q) {
      const float v = out[r]->data[q];
      if (std::isnan(v)) continue;
      written.insert(q * 4);
      const double c = memtune::templates::aos_soa_readwrite_scale(field(q));
      const double p = op == AosSoaOp::read    ? v - 1.0
                       : op == AosSoaOp::write ? v / (field(q) + 1) - 1.0
                                               : (v - 1.0) / c - 1.0;
      const bool known = p >= 0 && p < static_cast<double>(in_floats) && p == std::floor(p);
      if (op != AosSoaOp::read || v != 0.0F) read.insert(known ? static_cast<std::uint64_t>(p) * 4 : in_floats * 4);
    }

  const memtune::Problem problem{{"n", n}, {"op", OP}, {"fields", F}};
  const memtune::search::Config config{{"layout", LAYOUT}, {"block_size", BLOCK}, {"items", ITEMS}};
  const memtune::AccessPattern a =
      memtune::templates::aos_soa_description().hooks.access_pattern(config, problem, memtune::Target{});
  CHECK(a.block_threads == BLOCK);
  CHECK(a.blocks == blocks);
  CHECK_FALSE(written.empty());
  // The named floats of the block's elements below n; the others are counted.
  const long long first = static_cast<long long>(blocks / 2) * tile, end = std::min(first + tile, n);
  std::size_t outside = 0;
  const auto in_block = [&](const std::set<std::uint64_t>& bytes, bool scalar_array) {
    std::set<std::uint64_t> kept;
    for (const std::uint64_t b : bytes) {
      const long long e = scalar_array ? static_cast<long long>(b / 4) : element(b / 4);
      if (e >= first && e < end && static_cast<long long>(b / 4) < (scalar_array ? n : struct_floats)) kept.insert(b);
      else ++outside;
    }
    return kept;
  };
  CHECK(in_block(named_bytes(a, memtune::model::AccessKind::load), op == AosSoaOp::write) == read);
  CHECK(in_block(named_bytes(a, memtune::model::AccessKind::store), op == AosSoaOp::read) == written);
  CHECK((outside == 0 || first + tile > n));
}

template <int OP, int F> void check_model_layouts(long long n) {
  check_model_addresses<OP, 0, F, 64, 1>(n);
  check_model_addresses<OP, 0, F, 64, 8>(n);
  check_model_addresses<OP, 1, F, 64, 1>(n);
  check_model_addresses<OP, 1, F, 64, 2>(n);
  check_model_addresses<OP, 1, F, 64, 8>(n);
  if constexpr (OP != 1) {
    check_model_addresses<OP, 2, F, 64, 1>(n);
    check_model_addresses<OP, 2, F, 64, 4>(n);
  }
  check_model_addresses<OP, 3, F, 64, 1>(n);
  check_model_addresses<OP, 3, F, 128, 4>(n);
  check_model_addresses<OP, 4, F, 64, 2>(n);
  check_model_addresses<OP, 4, F, 64, 8>(n);
}

template <int OP> void check_model_op() {
  for (long long n : {4099LL, 4096LL, 1003LL}) {
    check_model_layouts<OP, 3>(n);
    check_model_layouts<OP, 4>(n);
  }
}

} // namespace

TEST_CASE("aos_soa.cu on the CPU: the model's load and store addresses are those the middle block touches") {
  check_model_op<0>();
  check_model_op<1>();
  check_model_op<2>();
}

TEST_CASE("aos_soa.cu on the CPU: read, every layout and item count, odd sizes") { check_op<0>(); }
TEST_CASE("aos_soa.cu on the CPU: write, every layout and item count, odd sizes") { check_op<1>(); }
TEST_CASE("aos_soa.cu on the CPU: readwrite, every layout and item count, odd sizes") { check_op<2>(); }

TEST_CASE("aos_soa.cu on the CPU: the reference kernel, every op, AoS and SoA arrangements, odd sizes") {
  for (const long long n : {1LL, 37LL, 1000LL}) {
    check_reference<0, 0, 3>(n, 2);
    check_reference<0, 1, 3>(n, 2);
    check_reference<1, 0, 5>(n, 1);
    check_reference<1, 1, 5>(n, 1);
    check_reference<2, 0, 4>(n, 3);
    check_reference<2, 1, 4>(n, 3);
  }
}
