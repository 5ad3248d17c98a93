// The host side of DescribedWorkload (no GPU): what each input is filled
// with. tests/gpu/described_workload_gpu_test.cpp covers the device side.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/measure/workload.hpp>
#include <memtune/description/random_data.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

using namespace memtune;

namespace {

template <class T> std::vector<T> as(std::span<const std::byte> bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

KernelBuilder base() {
  KernelBuilder b("fills");
  b.source("k.cu", "__global__ void k() {}")
      .kernel("k")
      .size("n", 1000, "elements")
      .parameter(search::Axis::categorical("LAYOUT", {"aos", "soa"}))
      .parameter(search::Axis::ordinal("PAD", {0, 4}))
      .block("32")
      .grid("1")
      .verify_with_config(nlohmann::json::object(), {0.0, 0.0});
  return b;
}

Target some_gpu() {
  Target t;
  t.cc_major = 9;
  t.max_threads_per_block = 1024;
  return t;
}

} // namespace

TEST_CASE("inputs: the i-th filled item uses seed + i; floats default to fill_random, integers to [1, 100]") {
  Fill layout_dependent{Fill::Kind::custom};
  std::vector<std::uint64_t> seeds_seen;
  layout_dependent.custom = [&](const FillRequest& r, std::span<std::byte> out) {
    seeds_seen.push_back(r.seed);
    CHECK(r.config.values().size() == 1); // only the depends_on axes
    std::fill(out.begin(), out.end(), std::byte{static_cast<unsigned char>(10 + r.config.at("LAYOUT"))});
  };
  layout_dependent.depends_on = {"LAYOUT"};
  Fill constant{Fill::Kind::constant};
  constant.value = 3;

  const KernelDescription d = base()
                                  .buffer("out", ElementType::f32, "n", BufferRole::out)
                                  .buffer("x", ElementType::f32, "n", BufferRole::in)
                                  .scalar("n", ElementType::i32, "n")
                                  .buffer("ids", ElementType::i32, "n", BufferRole::inout)
                                  .buffer("w", ElementType::f64, "n / 2", BufferRole::in, Fill::random_in(2.0, 3.0))
                                  .buffer("layout", ElementType::u8, "n", BufferRole::in, layout_dependent)
                                  .buffer("padded", ElementType::f32, "n + PAD", BufferRole::in)
                                  .buffer("work", ElementType::u32, "n", BufferRole::scratch)
                                  .constant("coeffs", ElementType::f32, "21")
                                  .constant("scale", ElementType::i16, "4", constant)
                                  .bytes_moved("8 * n")
                                  .build();
  const DescribedWorkload w(d, {{"n", 1000}}, some_gpu(), 7);

  std::vector<float> expected(1000);
  fill_random(expected, 7);
  CHECK(as<float>(w.host_input("x", {})) == expected);

  const auto ids = as<std::int32_t>(w.host_input("ids", {}));
  REQUIRE(ids.size() == 1000);
  CHECK(*std::min_element(ids.begin(), ids.end()) >= 1);
  CHECK(*std::max_element(ids.begin(), ids.end()) <= 100);
  CHECK(std::set<std::int32_t>(ids.begin(), ids.end()).size() > 90); // nearly every value of [1, 100]

  const auto weights = as<double>(w.host_input("w", {}));
  REQUIRE(weights.size() == 500);
  for (double x : weights) CHECK((x >= 2.0 && x < 3.0));

  // Variants per value of the custom fill's depends_on axes, filled once each.
  CHECK(as<std::uint8_t>(w.host_input("layout", {{"LAYOUT", 1}, {"PAD", 0}}))[0] == 11);
  CHECK(as<std::uint8_t>(w.host_input("layout", {{"LAYOUT", 0}, {"PAD", 4}}))[999] == 10);
  CHECK(as<std::uint8_t>(w.host_input("layout", {{"LAYOUT", 1}, {"PAD", 4}}))[5] == 11);
  CHECK(seeds_seen == std::vector<std::uint64_t>{7 + 3, 7 + 3}); // x, ids, w, then layout

  // A count that reads a parameter: one variant per count, the same values where they overlap.
  const auto unpadded = as<float>(w.host_input("padded", {{"LAYOUT", 0}, {"PAD", 0}}));
  const auto padded = as<float>(w.host_input("padded", {{"LAYOUT", 0}, {"PAD", 4}}));
  CHECK(unpadded.size() == 1000);
  CHECK(padded.size() == 1004);
  CHECK(std::equal(unpadded.begin(), unpadded.end(), padded.begin()));
  std::vector<float> seed_11(1000);
  fill_random(seed_11, 7 + 4);
  CHECK(unpadded == seed_11);

  std::vector<float> coeffs(21);
  fill_random(coeffs, 7 + 5); // constants come after the buffers
  CHECK(as<float>(w.host_input("coeffs", {})) == coeffs);
  CHECK(as<std::int16_t>(w.host_input("scale", {})) == std::vector<std::int16_t>{3, 3, 3, 3});

  CHECK_THROWS_WITH_AS((void)w.host_input("out", {}), doctest::Contains("'out' is not a filled input"), std::out_of_range);
  // Every buffer's bytes, the inout's pristine copy, and the expected values
  // in the outputs' own types (the reference's outputs, copied on the device).
  CHECK(w.device_bytes({{"LAYOUT", 0}, {"PAD", 4}}) ==
        1000 * 4 + 1000 * 4 + 1000 * 4 + 2 * 1000 * 4 + 1000 * 4 + 500 * 8 + 1000 + 1004 * 4 + 1000 * 4);
}

TEST_CASE("integer ranges are inclusive and cover the type; doubles default to fill_random's values") {
  const KernelDescription d = base()
                                  .buffer("out", ElementType::f64, "n", BufferRole::out)
                                  .buffer("bytes", ElementType::u8, "n", BufferRole::in, Fill::random_in(0, 255))
                                  .buffer("signs", ElementType::i64, "n", BufferRole::in, Fill::random_in(-1, 1))
                                  .buffer("d", ElementType::f64, "n", BufferRole::in)
                                  .build();
  const DescribedWorkload w(d, {{"n", 4096}}, some_gpu(), 1);
  const auto bytes = as<std::uint8_t>(w.host_input("bytes", {}));
  CHECK(std::set<std::uint8_t>(bytes.begin(), bytes.end()).size() == 256);
  const auto signs = as<std::int64_t>(w.host_input("signs", {}));
  CHECK(std::set<std::int64_t>(signs.begin(), signs.end()) == std::set<std::int64_t>{-1, 0, 1});
  std::vector<float> f(4096);
  fill_random(f, 1 + 2);
  const auto d_values = as<double>(w.host_input("d", {}));
  for (std::size_t i = 0; i < f.size(); ++i) CHECK(d_values[i] == static_cast<double>(f[i]));
}

TEST_CASE("a count that cannot be computed is an error naming the argument") {
  const KernelDescription d = base()
                                  .buffer("out", ElementType::f32, "n", BufferRole::out)
                                  .buffer("x", ElementType::f32, "n - 2000", BufferRole::in)
                                  .bytes_moved("8 * n")
                                  .build();
  CHECK_THROWS_WITH_AS(DescribedWorkload(d, {{"n", 1000}}, some_gpu(), 1), doctest::Contains("x.count = (n - 2000) is -1000"),
                       std::invalid_argument);
}

TEST_CASE("half, bfloat16 and vector inputs are filled lane by lane, never zero; an offset is allocated and filled too") {
  KernelDescription d = base()
                            .buffer("out", ElementType::f32, "n", BufferRole::out)
                            .buffer("h", ElementType::f16, "n", BufferRole::in)
                            .buffer("b2", vector_type(ElementType::bf16, 2), "n", BufferRole::in, Fill::random_in(-4, 4))
                            .buffer("f4", vector_type(ElementType::f32, 4), "n", BufferRole::in)
                            .buffer("padded", ElementType::f32, "n", BufferRole::in)
                            .build();
  std::get<BufferArgument>(d.arguments[4]).offset = search::parse_expr("28 + PAD");
  d.validate();
  const DescribedWorkload w(d, {{"n", 1000}}, some_gpu(), 3);

  // half: the default float fill, rounded to half; never zero.
  std::vector<float> f(1000);
  fill_random(f, 3 + 0);
  const auto h = as<std::uint16_t>(w.host_input("h", {}));
  REQUIRE(h.size() == 1000);
  for (std::size_t i = 0; i < h.size(); ++i) {
    CHECK(h[i] == half_from_double(f[i]));
    CHECK(double_from_half(h[i]) != 0.0);
  }
  // bfloat162: 2 lanes per element, in the range asked for.
  const auto b2 = as<std::uint16_t>(w.host_input("b2", {}));
  REQUIRE(b2.size() == 2000);
  std::set<std::uint16_t> distinct(b2.begin(), b2.end());
  CHECK(distinct.size() > 200);
  for (const std::uint16_t bits : b2) CHECK(std::fabs(double_from_bfloat16(bits)) <= 4.0);
  // float4: 4000 floats, exactly fill_random's.
  std::vector<float> f4(4000);
  fill_random(f4, 3 + 2);
  CHECK(as<float>(w.host_input("f4", {})) == f4);
  // The padded input: offset + count elements, per configuration of the offset.
  CHECK(w.host_input("padded", {{"LAYOUT", 0}, {"PAD", 0}}).size() == (28 + 1000) * 4);
  CHECK(w.host_input("padded", {{"LAYOUT", 0}, {"PAD", 4}}).size() == (32 + 1000) * 4);
  CHECK(w.device_bytes({{"LAYOUT", 0}, {"PAD", 4}}) ==
        1000 * 4 + 1000 * 4 + 1000 * 2 + 1000 * 4 + 1000 * 16 + (32 + 1000) * 4); // out and its expected floats
}

TEST_CASE("an element type from the problem: the workload fills the problem's type") {
  KernelDescription d = base()
                            .problem(ProblemParameter{"T", 0, 0, 1, "element type", false, {"float", "int16"}})
                            .buffer("out", ElementType::f32, "n", BufferRole::out)
                            .buffer("x", ElementType::f32, "n", BufferRole::in)
                            .build();
  std::get<BufferArgument>(d.arguments[1]).type_from = "T";
  d.validate();
  const DescribedWorkload as_float(d, {{"n", 100}}, some_gpu(), 1);
  CHECK(as_float.host_input("x", {}).size() == 400);
  const DescribedWorkload as_short(d, {{"n", 100}, {"T", 1}}, some_gpu(), 1);
  const auto shorts = as<std::int16_t>(as_short.host_input("x", {}));
  REQUIRE(shorts.size() == 100);
  for (const auto v : shorts) CHECK((v >= 1 && v <= 100)); // the integer default fill
}

TEST_CASE("a host check whose library cannot be loaded stops the workload with the field named") {
  KernelDescription d = base().buffer("out", ElementType::f32, "n", BufferRole::out).build();
  d.verify.mode = VerifySpec::Mode::host_check;
  d.verify.host_check = HostCheck{"/nonexistent/check.so", "check"};
  CHECK_THROWS_WITH_AS(DescribedWorkload(d, {{"n", 10}}, some_gpu(), 1),
                       doctest::Contains("field 'verify.library': cannot load /nonexistent/check.so"),
                       std::invalid_argument);
  d.verify.host_check = HostCheck{MEMTUNE_TEST_HOST_CHECK_LIBRARY, "check_scaled"};
  CHECK_NOTHROW(DescribedWorkload(d, {{"n", 10}}, some_gpu(), 1));
}
