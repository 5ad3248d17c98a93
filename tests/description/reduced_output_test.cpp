// The reduced comparison: a reduction's first pass writes one partial sum
// per block, so its output changes with block size and block count while the
// sum of the partials does not. Emulated here: the partial sums of one input
// for every block count, against those of another block count.
#include <memtune/description/reduced_output.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace memtune;
using namespace memtune::description_detail;

namespace {

// What the first pass of a block reduction writes: partial[b] = the sum of its blocks' stripes, in float.
std::vector<float> partial_sums(const std::vector<float>& in, int blocks, int block_size) {
  std::vector<float> partial(static_cast<std::size_t>(blocks), 0.0F);
  for (int b = 0; b < blocks; ++b) {
    float sum = 0.0F;
    for (std::size_t i = static_cast<std::size_t>(b) * block_size; i < in.size(); i += static_cast<std::size_t>(blocks) * block_size)
      for (int t = 0; t < block_size && i + t < in.size(); ++t) sum += in[i + t];
    partial[static_cast<std::size_t>(b)] = sum;
  }
  return partial;
}

std::span<const std::byte> bytes_of(const std::vector<float>& v) { return std::as_bytes(std::span(v)); }

} // namespace

TEST_CASE("reduced comparison: the partial sums of every block count agree with the reference's within the float tolerance") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0F, 1.0F);
  std::vector<float> in(1 << 16);
  for (float& x : in) x = u(rng);
  ReducedOutput spec{"partials", ReducedOutput::Op::sum, 0, std::nullopt};
  const std::vector<float> reference = partial_sums(in, 64, 256);
  const ReducedValue want = reduce_output(spec.op, ElementType::f32, bytes_of(reference), 64);
  for (const int blocks : {1, 7, 32, 160, 1024}) {
    for (const int block_size : {32, 128, 1024}) {
      CAPTURE(blocks);
      CAPTURE(block_size);
      std::vector<float> partial = partial_sums(in, blocks, block_size);
      partial.resize(partial.size() + 10, 1e6F); // beyond count: not read
      const ReducedValue got = reduce_output(spec.op, ElementType::f32, bytes_of(partial), blocks);
      CHECK(got.lanes == blocks);
      const Verification v = compare_reduced(spec, ElementType::f32, got, blocks, want, 64);
      CHECK(v.ok);
      CHECK(v.max_abs_error <= v.tolerance);
    }
  }
  // A partial sum off by one element's worth fails, and says what it compared.
  std::vector<float> wrong = partial_sums(in, 32, 128);
  wrong[5] += 0.5F;
  const Verification v = compare_reduced(spec, ElementType::f32, reduce_output(spec.op, ElementType::f32, bytes_of(wrong), 32),
                                         32, want, 64);
  CHECK_FALSE(v.ok);
  CHECK(v.buffer == "partials");
  CHECK(v.note.find("the sum of the first 32 elements of 'partials' is ") == 0);
  CHECK(v.note.find("the reference's (first 64)") != std::string::npos);
}

TEST_CASE("reduced comparison: an unwritten (poisoned) partial fails even where the sum would not show it") {
  std::vector<float> partial{1.0F, 2.0F, std::nanf(""), 3.0F};
  const ReducedOutput spec{"p", ReducedOutput::Op::sum, 0, std::nullopt};
  const ReducedValue got = reduce_output(spec.op, ElementType::f32, bytes_of(partial), 4);
  CHECK(got.unwritten == 1);
  CHECK(got.value == 6.0);
  const ReducedValue want{6.0, 6.0, 3, 0};
  const Verification v = compare_reduced(spec, ElementType::f32, got, 4, want, 3);
  CHECK_FALSE(v.ok);
  CHECK(v.note.find("1 of those 4 values were never written") != std::string::npos);
}

TEST_CASE("reduced comparison: min, max and count, integers exact, vector lanes and the range of count") {
  const std::vector<int> ints{5, -3, 0, 9, 0, 2};
  const auto bytes = std::as_bytes(std::span(ints));
  CHECK(reduce_output(ReducedOutput::Op::min, ElementType::i32, bytes, 6).value == -3);
  CHECK(reduce_output(ReducedOutput::Op::max, ElementType::i32, bytes, 6).value == 9);
  CHECK(reduce_output(ReducedOutput::Op::max, ElementType::i32, bytes, 3).value == 5);
  CHECK(reduce_output(ReducedOutput::Op::count, ElementType::i32, bytes, 6).value == 4);
  CHECK(reduce_output(ReducedOutput::Op::sum, ElementType::i32, bytes, 6).value == 13);
  // int2: 3 elements of 2 lanes.
  const ReducedValue lanes = reduce_output(ReducedOutput::Op::sum, vector_type(ElementType::i32, 2), bytes, 3);
  CHECK(lanes.lanes == 6);
  CHECK(lanes.value == 13);
  CHECK_THROWS_AS((void)reduce_output(ReducedOutput::Op::sum, ElementType::i32, bytes, 7), std::invalid_argument);
  CHECK_THROWS_AS((void)reduce_output(ReducedOutput::Op::sum, ElementType::i32, bytes, -1), std::invalid_argument);
  // Integers compare exactly unless a tolerance is given.
  const ReducedOutput exact{"b", ReducedOutput::Op::sum, 0, std::nullopt};
  CHECK_FALSE(compare_reduced(exact, ElementType::i32, {14, 14, 6, 0}, 6, {13, 13, 6, 0}, 6).ok);
  ReducedOutput loose = exact;
  loose.tolerance = Tolerance{1.0, 0.0};
  CHECK(compare_reduced(loose, ElementType::i32, {14, 14, 6, 0}, 6, {13, 13, 6, 0}, 6).ok);
  // A relative tolerance is for float rounding: an integer sum ignores it.
  ReducedOutput relative = exact;
  relative.tolerance = Tolerance{0.5, 1e-5};
  CHECK_FALSE(compare_reduced(relative, ElementType::i32, {1e6 - 1, 1e6, 1000000, 0}, 1000000, {1e6, 1e6, 1000000, 0}, 1000000).ok);
  CHECK(compare_reduced(relative, ElementType::f32, {1e6 - 1, 1e6, 1000000, 0}, 1000000, {1e6, 1e6, 1000000, 0}, 1000000).ok);
  // A sum's tolerance scales with the magnitudes added: 1e-5 of sum |x| for float.
  const ReducedOutput sum{"s", ReducedOutput::Op::sum, 0, std::nullopt};
  CHECK(compare_reduced(sum, ElementType::f32, {0.005, 1000, 10, 0}, 10, {0.0, 1000, 10, 0}, 10).ok);
  CHECK_FALSE(compare_reduced(sum, ElementType::f32, {0.02, 1000, 10, 0}, 10, {0.0, 1000, 10, 0}, 10).ok);
  // half partials: 1e-3.
  CHECK(compare_reduced(sum, ElementType::f16, {0.5, 1000, 10, 0}, 10, {0.0, 1000, 10, 0}, 10).ok);
}

TEST_CASE("reduced comparison: the sum keeps its digits over many partials (compensated)") {
  std::vector<double> partial(1'000'001, 0.1);
  partial[0] = 1e10;
  const ReducedValue r = reduce_output(ReducedOutput::Op::sum, ElementType::f64, std::as_bytes(std::span(partial)),
                                       static_cast<std::int64_t>(partial.size()));
  CHECK(std::fabs(r.value - (1e10 + 100000.0)) < 1e-4);
}
