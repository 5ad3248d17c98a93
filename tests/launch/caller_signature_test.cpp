// What an application passes to a tuned kernel (TunedKernel<Args...>), and
// the check of its types against the description, without a GPU.
#include <memtune/description/description_json.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <filesystem>

using namespace memtune;

namespace {

const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

template <class... Args> void check(const KernelDescription& d) {
  const std::array<CallerArgumentType, sizeof...(Args)> types{caller_argument_type<Args>()...};
  check_caller_signature(d, types);
}

} // namespace

TEST_CASE("caller argument types from C++ types") {
  CHECK(caller_argument_type<const float*>() == CallerArgumentType{true, false, true, ElementType::f32});
  CHECK(caller_argument_type<double*>() == CallerArgumentType{true, false, false, ElementType::f64});
  CHECK(caller_argument_type<CUdeviceptr>().any_element);
  CHECK(caller_argument_type<int>() == CallerArgumentType{false, false, false, ElementType::i32});
  CHECK(caller_argument_type<const std::uint64_t&>() == CallerArgumentType{false, false, false, ElementType::u64});
  CHECK(caller_argument_type<const float*>().to_string() == "const float*");
  CHECK(caller_argument_type<std::uint8_t*>().to_string() == "uint8_t*");
  CHECK(caller_argument_type<CUdeviceptr>().to_string() == "CUdeviceptr");
  CHECK(caller_argument_type<int>().to_string() == "int");
  CHECK(caller_argument_type<unsigned>().to_string() == "unsigned");
}

TEST_CASE("every template's caller arguments: its buffers but scratch, in order; computed scalars are memtune's") {
  const std::map<std::string, std::string> expected{
      {"filter", "(const float* in, float* out)"},
      {"matvec", "(const float* A, const float* x, float* y)"}, // partial and counters are the handle's
      {"aos_soa", "(const float* in, float* out)"},
      {"fdtd", "(const float* in, float* out)"},
      {"transpose", "(const float* in, float* out)"},
  };
  for (const KernelDescription* d : templates::descriptions()) {
    CAPTURE(d->name);
    REQUIRE(expected.count(d->name) == 1);
    const auto parameters = caller_parameters(*d);
    CHECK(format_caller_parameters(parameters) == expected.at(d->name));
    for (const CallerParameter& p : parameters) CHECK(argument_name(d->arguments[p.argument]) == p.name);
  }
  // A user's kernel with an inout buffer and a scalar the application passes.
  const KernelDescription scale = load_description(kAssets / "scale.json");
  CHECK(format_caller_parameters(caller_parameters(scale)) == "(float* y, const float* x, float alpha)");
}

TEST_CASE("the signature check accepts const or mutable inputs and CUdeviceptr, and names what does not match") {
  const KernelDescription& filter = templates::filter_description();
  CHECK_NOTHROW(check<const float*, float*>(filter));
  CHECK_NOTHROW(check<float*, float*>(filter));        // a mutable pointer may be read
  CHECK_NOTHROW(check<CUdeviceptr, CUdeviceptr>(filter));

  CHECK_THROWS_WITH_AS(check<const float*>(filter),
                       doctest::Contains("filter takes 2 arguments from the caller (const float* in, float* out)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((check<const float*, float*, int>(filter)), doctest::Contains("is given 3 (const float*, float*, int)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((check<const float*, const float*>(filter)),
                       doctest::Contains("argument 1 ('out'): the kernel writes this out buffer: float* expected, got const float*"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((check<const double*, float*>(filter)),
                       doctest::Contains("argument 0 ('in'): const float* expected (in buffer of float), got const double*"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((check<int, float*>(filter)),
                       doctest::Contains("argument 0 ('in'): a buffer of float expected (const float* or CUdeviceptr), got int"),
                       std::invalid_argument);

  const KernelDescription scale = load_description(kAssets / "scale.json");
  CHECK_NOTHROW((check<float*, const float*, float>(scale)));
  CHECK_THROWS_WITH_AS((check<float*, const float*, double>(scale)),
                       doctest::Contains("argument 2 ('alpha'): float expected, got double"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((check<float*, const float*, float*>(scale)),
                       doctest::Contains("argument 2 ('alpha'): a float scalar expected, got float*"), std::invalid_argument);
}

TEST_CASE("the README's application side: TunedKernel<float*, const float*, float> fits saxpy.json") {
  const KernelDescription saxpy = load_description(kAssets / "saxpy.json");
  CHECK(format_caller_parameters(caller_parameters(saxpy)) == "(float* y, const float* x, float a)");
  CHECK_NOTHROW((check<float*, const float*, float>(saxpy)));
}

TEST_CASE("a uint64 scalar passed as CUdeviceptr gets a hint") {
  KernelDescription d = load_description(kAssets / "scale.json");
  std::get<ScalarArgument>(d.arguments[2]).type = ElementType::u64;
  CHECK_THROWS_WITH_AS((check<float*, const float*, CUdeviceptr>(d)), doctest::Contains("pass a uint64 scalar as std::uint64_t"),
                       std::invalid_argument);
  CHECK_NOTHROW((check<float*, const float*, std::uint64_t>(d)));
}
