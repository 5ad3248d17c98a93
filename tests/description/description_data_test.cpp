// A description as data (KernelDescription::to_data, description_from_data):
// what a worker process rebuilds a description made in C++ from. It must come
// back with the same fingerprint (the worker refuses any other), its source
// files' text included, and say which C++ callback keeps one from crossing.
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/catalogue.hpp>

#include "../support/asset_description.hpp"
#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

using namespace memtune;

namespace {

constexpr const char* kScale = R"(
#include "scale_op.cuh"
template <int BLOCK>
__global__ void scale(const float* x, float* y, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) y[i] = op(x[i]);
}
)";

KernelBuilder scale() {
  KernelBuilder b("scale_in_cpp");
  b.source("scale.cu", kScale)
      .source("scale_op.cuh", "__device__ float op(float v) { return 2.0f * v; }\n")
      .kernel("scale<{BLOCK}>")
      .size("n", 1 << 20, "elements")
      .parameter(search::Axis::ordinal("BLOCK", {128, 256}))
      .block("BLOCK")
      .grid("ceil_div(n, BLOCK)")
      .buffer("x", ElementType::f32, "n", BufferRole::in, Fill{Fill::Kind::random, -2.0, 2.0})
      .buffer("y", ElementType::f32, "n", BufferRole::out)
      .scalar("n", ElementType::i32, "n")
      .verify_with_config({{"BLOCK", 128}}, {0.0, 1e-6});
  return b;
}

KernelDescription round_trip(const KernelDescription& d) {
  // Through text, as the worker protocol carries it.
  return description_from_data(nlohmann::ordered_json::parse(d.to_data().dump()), "(test)");
}

} // namespace

TEST_CASE("a description made in C++ crosses as data: same fingerprint, sources included, nothing read from disk") {
  const KernelDescription d = scale().build();
  CHECK(d.not_data_because().empty());
  const KernelDescription back = round_trip(d);
  CHECK(back.fingerprint() == d.fingerprint());
  REQUIRE(back.source.files.size() == 2);
  CHECK(back.source.files[1].name == "scale_op.cuh");
  CHECK(back.source.files[1].text == d.source.files[1].text);
  const Problem p = back.complete({{"n", 1000}});
  CHECK(back.launch({{"BLOCK", 256}}, p, catalogue_target("h100")).name_expression == "scale<256>");
  CHECK(back.space(p, catalogue_target("h100")).enumerate().size() == 2);
}

TEST_CASE("a description file with a reference kernel and headers crosses as data with its fingerprint") {
  const KernelDescription& file = asset_description("scale.json");
  REQUIRE(file.verify.mode == VerifySpec::Mode::reference_kernel);
  CHECK(file.not_data_because().empty());
  const KernelDescription back = round_trip(file);
  CHECK(back.fingerprint() == file.fingerprint());
  CHECK(back.source.include_paths == file.source.include_paths);
}

TEST_CASE("a C++ callback keeps a description from crossing as data, and is named") {
  const ReferenceFunction twice = [](const ReferenceRequest&) { return std::vector<ExpectedOutput>{}; };
  CHECK(scale().verify_with(twice).build().not_data_because().find("KernelBuilder::verify_with") != std::string::npos);

  Fill custom{Fill::Kind::custom};
  custom.custom = [](const FillRequest&, std::span<std::byte> out) { std::fill(out.begin(), out.end(), std::byte{1}); };
  KernelBuilder filled = scale();
  filled.buffer("z", ElementType::f32, "n", BufferRole::in, custom);
  CHECK(filled.build().not_data_because() == "argument 'z' is filled by a C++ function");

  // The built-in templates are data too (reference kernels, random fills, a
  // library baseline): memtune-worker gets them as it gets any description,
  // and rebuilds them with the same fingerprint and baselines.
  for (const KernelDescription* t : templates::descriptions()) {
    CAPTURE(t->name);
    CHECK(t->not_data_because().empty());
    const KernelDescription back = description_from_data(t->to_data(), "(test)");
    CHECK(back.fingerprint() == t->fingerprint());
    CHECK(back.baseline_names() == t->baseline_names());
  }
}

TEST_CASE("data that is not a description is refused, naming what is wrong") {
  const KernelDescription d = scale().build();
  CHECK_THROWS_WITH_AS((void)description_from_data(nlohmann::ordered_json::object(), "(test)"),
                       doctest::Contains("not a description as data"), DescriptionError);
  nlohmann::ordered_json renamed = d.to_data();
  renamed["source_files"][1]["name"] = "other.cuh";
  CHECK_THROWS_WITH_AS((void)description_from_data(renamed, "(test)"),
                       doctest::Contains("'scale_op.cuh' named, 'other.cuh' given as data"), DescriptionError);
  nlohmann::ordered_json missing = d.to_data();
  missing["source_files"].erase(1);
  CHECK_THROWS_WITH_AS((void)description_from_data(missing, "(test)"), doctest::Contains("2 files named, 1 given"),
                       DescriptionError);
  nlohmann::ordered_json wrong_type = d.to_data();
  wrong_type["source_files"][0]["text"] = 3;
  CHECK_THROWS_WITH_AS((void)description_from_data(wrong_type, "(test)"), doctest::Contains("source_files[0]"),
                       DescriptionError);
}
