// examples/kernels/reduction: its first pass writes one partial sum per
// block, so the output changes with the block size and the block count. The
// kernel's arithmetic (each thread a grid-stride sum in T, then the block's
// sum) run on the CPU for every configuration of the description's space,
// compared with the reference configuration's partials through the
// description's own reduced comparison, for int and for float.
#include "user_kernel_emulation.hpp"

#include <memtune/description/argument_values.hpp>
#include <memtune/description/fill.hpp>
#include <memtune/description/reduced_output.hpp>

#include <doctest/doctest.h>

#include <cstring>

namespace {

// What reduce_partial<T, BLOCK> writes: partial[b] = sum over its threads of
// their grid-stride sums (the warp shuffles change only the order).
template <class T> std::vector<std::byte> partials(const std::vector<std::byte>& in_bytes, std::int64_t n, int block, int blocks) {
  std::vector<T> in(static_cast<std::size_t>(n));
  std::memcpy(in.data(), in_bytes.data(), in.size() * sizeof(T));
  std::vector<T> out(static_cast<std::size_t>(blocks));
  const std::int64_t stride = static_cast<std::int64_t>(block) * blocks;
  for (int b = 0; b < blocks; ++b) {
    T block_sum = 0;
    for (int t = 0; t < block; ++t) {
      T sum = 0;
      for (std::int64_t i = static_cast<std::int64_t>(b) * block + t; i < n; i += stride) sum += in[static_cast<std::size_t>(i)];
      block_sum += sum;
    }
    out[static_cast<std::size_t>(b)] = block_sum;
  }
  std::vector<std::byte> bytes(out.size() * sizeof(T));
  std::memcpy(bytes.data(), out.data(), bytes.size());
  return bytes;
}

} // namespace

TEST_CASE("examples/kernels/reduction: every block size and block count verifies by the sum of its partials, int and float") {
  using namespace memtune;
  const KernelDescription d = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/reduction/reduction.json");
  const Target& h100 = catalogue_target("h100-sxm");
  REQUIRE(d.verify.reduced.size() == 1);
  const ReducedOutput& reduced = d.verify.reduced[0];
  CHECK(reduced.buffer == "g_odata");
  for (const std::int64_t type : {0, 1}) { // float, int
    CAPTURE(type);
    const Problem problem = d.complete({{"n", 1 << 20}, {"T", type}});
    const KernelDescription resolved = d.resolve_element_types(problem);
    const auto& input = std::get<BufferArgument>(resolved.arguments[0]);
    const auto& output = std::get<BufferArgument>(resolved.arguments[1]);
    CHECK(output.type == (type == 0 ? ElementType::f32 : ElementType::i32));
    const std::vector<std::byte> in =
        description_detail::fill_host(input.fill, input.type, problem.at("n"), FillRequest{problem, {}, 1});
    const auto run = [&](const search::Config& c) {
      const search::Config env = resolved.environment(c, problem, h100);
      const LaunchSpec l = resolved.launch(c, problem, h100);
      const std::int64_t count = description_detail::reduced_count(resolved, reduced, env, env.at("blocks"));
      CHECK(count == l.grid.x);
      CHECK(description_detail::buffer_count(resolved, output, env, "arguments[1]") == l.grid.x);
      const int block = static_cast<int>(l.block.x), blocks = static_cast<int>(l.grid.x);
      const auto bytes = type == 0 ? partials<float>(in, problem.at("n"), block, blocks)
                                   : partials<std::int32_t>(in, problem.at("n"), block, blocks);
      return std::pair{description_detail::reduce_output(reduced.op, output.type, bytes, count), count};
    };
    const auto [want, want_count] = run(resolved.reference_configuration(problem, h100));
    std::size_t ran = 0;
    for (const search::Config& c : resolved.space(problem, h100).enumerate()) {
      CAPTURE(resolved.space(problem, h100).format(c));
      const auto [got, count] = run(c);
      const Verification v = description_detail::compare_reduced(reduced, output.type, got, count, want, want_count);
      CHECK_MESSAGE(v.ok, v.note);
      if (type == 1) CHECK(got.value == want.value); // integer sums are exact
      ++ran;
    }
    CHECK(ran == 24); // 30, less the grids of more threads than the 1M elements
  }
}
