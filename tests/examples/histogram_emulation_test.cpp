// examples/kernels/histogram: the user's histogram run on the CPU for every
// instantiation of its description's space, launched with the description's
// grid (blocks per SM of a small GPU, so that grids stride) and block: every
// bin equals the count of its byte, with n not a multiple of any load width.
#include "user_kernel_emulation.hpp"

#include <doctest/doctest.h>

#include <random>

#include "../templates/device_code_begin.hpp"
#include "../../examples/kernels/histogram/histogram.cu"
#include "../templates/device_code_end.hpp"

namespace {

using Runner = void (*)(const memtune::LaunchSpec&, const unsigned char*, unsigned*, long long);

std::map<std::vector<std::int64_t>, Runner> runners() {
  std::map<std::vector<std::int64_t>, Runner> out;
  for_each_value<128, 256, 512, 1024>([&]<int BLOCK>() {
    for_each_value<1, 4, 16>([&]<int VEC>() {
      for_each_value<0, 1>([&]<int PRIVATE>() {
        for_each_value<1, 2, 8>([&]<int REPLICAS>() {
          out[{BLOCK, VEC, PRIVATE, REPLICAS}] = [](const memtune::LaunchSpec& l, const unsigned char* data,
                                                    unsigned* bins, long long n) {
            cuda_emulation::run(l, [&] { histogram<BLOCK, VEC, static_cast<user::Private>(PRIVATE), REPLICAS>(data, bins, n); });
          };
        });
      });
    });
  });
  return out;
}

} // namespace

TEST_CASE("examples/kernels/histogram on the CPU: every configuration, skewed bytes, n odd, strided grids") {
  const memtune::KernelDescription d =
      memtune::load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/histogram/histogram.json");
  // A GPU of 4 SMs: at most 4 x WAVES blocks, so every grid strides over the
  // 20011 bytes (157 blocks' worth at 128 threads and one byte per load).
  memtune::Target small = catalogue_target("h100-sxm");
  small.sm_count = 4;
  const long long n = 20011;
  // Aligned like cuMemAlloc's, for the 16-byte loads; a quarter of the bytes in one bin (contention).
  alignas(16) static unsigned char data[20016];
  std::mt19937 rng(7);
  for (long long i = 0; i < n; ++i) data[i] = i % 4 == 0 ? 200 : static_cast<unsigned char>(rng() % 256);
  std::vector<unsigned> expected(256, 0);
  for (long long i = 0; i < n; ++i) ++expected[data[i]];

  const std::size_t ran = for_each_config(
      d, small, {{"n", n}}, runners(),
      [&](const memtune::search::Config& c, const memtune::LaunchSpec& l, Runner run) {
        // Every instantiation once (WAVES=2); every WAVES for 128 threads (the grid only).
        if (c.at("WAVES") != 2 && c.at("BLOCK") != 128) return;
        std::vector<unsigned> bins(256 + 4, 0); // 4 guards past the bins
        run(l, data, bins.data(), n);
        CHECK(std::vector<unsigned>(bins.begin(), bins.begin() + 256) == expected);
        CHECK(std::vector<unsigned>(bins.begin() + 256, bins.end()) == std::vector<unsigned>(4, 0));
      });
  CHECK(ran == 156);
}
