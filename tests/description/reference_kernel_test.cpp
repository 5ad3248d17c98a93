// What a reference kernel's verification can say as data: a tolerance per
// summed term (verify.tolerance.terms), axes it depends on (verify.depends_on:
// one run per value), and inputs scaled to a sum of magnitudes (fill sum_abs:
// a filter's taps, a stencil's coefficients).
#include <memtune/description/fill.hpp>
#include <memtune/description/kernel_description.hpp>

#include "description_json_support.hpp"

#include <cmath>

using namespace description_json_test;

namespace {

ordered_json with_reference_kernel() {
  ordered_json doc = transpose();
  doc["verify"] = ordered_json::parse(R"json({"reference_kernel": {"kernel": "reference<{PAD}>", "block": ["256"],
      "grid": ["ceil_div(rows * cols, 256)"]}, "depends_on": ["PAD"],
      "tolerance": {"abs": 2.4e-7, "terms": "cols + 1"}})json");
  return doc;
}

} // namespace

TEST_CASE("reference kernel: depends_on and a tolerance per term, read, evaluated and written back") {
  const KernelDescription d = read(with_reference_kernel());
  CHECK(d.verify.mode == VerifySpec::Mode::reference_kernel);
  CHECK(d.verify.depends_on == std::vector<std::string>{"PAD"});
  CHECK(d.verify.tolerance_terms.to_string() == "(cols + 1)");
  // The launch reads the depends_on axis's value.
  const Problem p = d.complete({{"rows", 3}, {"cols", 5}});
  const Target t = [] {
    Target target;
    target.name = "test";
    return target;
  }();
  CHECK(d.reference_launch(p, t, {{"PAD", 1}}).name_expression == "reference<1>");
  CHECK(d.reference_launch(p, t, {{"PAD", 0}}).name_expression == "reference<0>");
  // abs and rel scale with the terms an output sums.
  const Tolerance per_output = tolerance_for(d.verify, ElementType::f32, 6);
  CHECK(per_output.abs == doctest::Approx(6 * 2.4e-7));
  CHECK(per_output.rel == 0.0);
  const KernelDescription back = read(d.to_json());
  CHECK(back.fingerprint() == d.fingerprint());
  CHECK(back.verify.depends_on == d.verify.depends_on);
}

TEST_CASE("reference kernel: a wrong depends_on or terms names the field") {
  ordered_json doc = with_reference_kernel();
  doc["verify"]["depends_on"] = {"BLOCK"};
  CHECK_FAILS(doc, "verify.depends_on", "BLOCK");

  doc = with_reference_kernel();
  doc["verify"]["tolerance"]["terms"] = "TILE";
  CHECK_FAILS(doc, "verify.tolerance.terms", "TILE");

  doc = with_reference_kernel();
  doc["verify"]["tolerance"]["per"] = 3;
  CHECK_FAILS(doc, "verify.tolerance.per", "unknown field");

  doc = transpose(); // a reference configuration depends on nothing: it is one configuration
  doc["verify"]["depends_on"] = {"PAD"};
  CHECK_FAILS(doc, "verify.depends_on", "only a reference kernel depends on parameters");
}

TEST_CASE("fill sum_abs: random values scaled to a sum of magnitudes, floats only") {
  ordered_json doc = transpose();
  doc["arguments"][1]["fill"] = ordered_json::parse(R"({"random": [-1, 1], "sum_abs": 0.5})");
  const KernelDescription d = read(doc);
  const auto& in = std::get<BufferArgument>(d.arguments[1]);
  REQUIRE(in.fill.sum_abs);
  const Problem p = d.complete({});
  const std::vector<std::byte> bytes = description_detail::fill_host(in.fill, ElementType::f32, 25, {p, {}, 7});
  const auto* values = reinterpret_cast<const float*>(bytes.data());
  double sum = 0.0;
  bool never_zero = true;
  for (int i = 0; i < 25; ++i) {
    sum += std::fabs(values[i]);
    never_zero = never_zero && values[i] != 0.0F;
  }
  CHECK(sum == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(never_zero);
  CHECK(read(d.to_json()).fingerprint() == d.fingerprint());

  doc["arguments"][1]["fill"] = ordered_json::parse(R"({"random": [-1, 1], "sum_abs": 0})");
  CHECK_FAILS(doc, "arguments[1].fill.sum_abs", "finite number > 0");
  doc["arguments"][1]["fill"] = ordered_json::parse(R"({"random": [-1, 1], "sum_abs": 1e300})");
  CHECK_FAILS(doc, "arguments[1].fill.sum_abs", "does not fit in float");
  doc["arguments"][1]["fill"] = ordered_json::parse(R"({"random": [-1e39, 1]})"); // a float range beyond float's
  CHECK_FAILS(doc, "arguments[1].fill", "does not fit in float");
  doc["arguments"][1]["fill"] = ordered_json::parse(R"({"constant": 1, "sum_abs": 1})");
  CHECK_FAILS(doc, "arguments[1].fill.sum_abs", "only a random fill");
}
