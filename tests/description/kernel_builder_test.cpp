#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace memtune;

namespace {

constexpr const char* kSaxpy = R"(
template <int BLOCK, int ITEMS>
__global__ void saxpy(const float* x, float* y, float a, int n) {
  const int base = (blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
  for (int k = 0; k < ITEMS; ++k) if (base + k < n) y[base + k] += a * x[base + k];
}
)";

KernelBuilder saxpy() {
  KernelBuilder b("saxpy");
  b.summary("y = a x + y")
      .source("saxpy.cu", kSaxpy)
      .kernel("saxpy<{BLOCK}, {ITEMS}>")
      .size("n", 1 << 24, "elements")
      .parameter(search::Axis::ordinal("BLOCK", {128, 256, 512}))
      .parameter(search::Axis::ordinal("ITEMS", {1, 2, 4}))
      .constraint("BLOCK <= max_threads_per_block", "threads per block above the device limit")
      .block("BLOCK")
      .grid("ceil_div(n, BLOCK * ITEMS)")
      .buffer("x", ElementType::f32, "n", BufferRole::in)
      .buffer("y", ElementType::f32, "n", BufferRole::inout)
      .scalar("a", ElementType::f32, 2.0, /*from_caller=*/true)
      .scalar("n", ElementType::i32, "n")
      .verify_with_config({{"BLOCK", 128}, {"ITEMS", 1}}, {0.0, 1e-6});
  return b;
}

const Target& h100() { return catalogue_target("h100"); }

} // namespace

TEST_CASE("the builder makes the same description a file would") {
  const KernelDescription d = saxpy().build();
  CHECK(d.name == "saxpy");
  CHECK(d.summary == "y = a x + y");
  CHECK(d.problem.size() == 1);
  CHECK(d.problem[0].is_size);
  const Problem p = d.complete({{"n", 1000}});
  const LaunchSpec l = d.launch({{"BLOCK", 256}, {"ITEMS", 4}}, p, h100());
  CHECK(l.name_expression == "saxpy<256, 4>");
  CHECK(l.grid == Dim3{1, 1, 1});
  CHECK(d.bytes_moved(p) == 1000ULL * 4 * 3); // x read, y read and written
  CHECK(d.space(p, h100()).enumerate().size() == 9);
  CHECK(d.verify.tolerance.rel == 1e-6);
  CHECK_FALSE(d.has_model());

  // The JSON form, beside the source file, reads back into an equal description.
  const auto folder = std::filesystem::temp_directory_path() / ("memtune-builder-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  { std::ofstream(folder / "saxpy.cu") << kSaxpy; }
  const KernelDescription back = description_from_json(d.to_json(), "saxpy.json", folder);
  CHECK(back.to_json() == d.to_json());
  CHECK(back.fingerprint() == d.fingerprint());
  std::filesystem::remove_all(folder);
}

TEST_CASE("builder errors are DescriptionErrors naming the field") {
  try {
    (void)saxpy().constraint("BLOCK <= ", "why");
    FAIL("accepted");
  } catch (const DescriptionError& e) {
    CHECK(e.file() == "description 'saxpy'");
    CHECK(e.field() == "constraints[1]");
    CHECK(e.reason().find("syntax error at column 10") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS((void)saxpy().constraint("BLOCKS <= 1024", "").build(), doctest::Contains("unknown name 'BLOCKS'"),
                       DescriptionError);
  CHECK_THROWS_WITH_AS((void)saxpy().scalar("n", ElementType::i32, "n").build(),
                       doctest::Contains("description 'saxpy': field 'arguments[4].name': the argument 'n' is listed twice"), DescriptionError);
  CHECK_THROWS_WITH_AS((void)KernelBuilder("").build(), doctest::Contains("a description needs a name"), DescriptionError);
  CHECK_THROWS_WITH_AS((void)saxpy().buffer("z", ElementType::f32, "n", BufferRole::in, Fill{Fill::Kind::custom}).build(),
                       doctest::Contains("a custom fill needs its C++ function"), DescriptionError);
  Fill random_with_axes;
  random_with_axes.depends_on = {"BLOCK"};
  CHECK_THROWS_WITH_AS((void)saxpy().buffer("z", ElementType::f32, "n", BufferRole::in, random_with_axes).build(),
                       doctest::Contains("only a custom fill depends on parameters"), DescriptionError);
  CHECK_THROWS_WITH_AS((void)saxpy().verify_with(nullptr).build(), doctest::Contains("needs its C++ function"),
                       DescriptionError);
  const auto expected = [](const ReferenceRequest&) { return std::vector<ExpectedOutput>{}; };
  CHECK_THROWS_WITH_AS((void)saxpy().verify_with(expected, {"WIDTH"}).build(),
                       doctest::Contains("description 'saxpy': field 'verify.depends_on': 'WIDTH' is not a tunable parameter"), DescriptionError);
}

// saxpy's accesses, as its description file's "model" section would list them.
constexpr const char* kSaxpyModel = R"({
  "locals": {"base": "(blockIdx.x * BLOCK + threadIdx.x) * ITEMS", "i": "base + iteration"},
  "global": [
    {"name": "load x", "buffer": "x", "access": "load", "index": "i", "iterations": "ITEMS", "if": "i < n"},
    {"name": "load y", "buffer": "y", "access": "load", "index": "i", "iterations": "ITEMS", "if": "i < n"},
    {"name": "store y", "buffer": "y", "access": "store", "index": "i", "iterations": "ITEMS", "if": "i < n"}
  ]
})";

TEST_CASE("a model section from C++ is read as a file's and modeled alike") {
  const KernelDescription d = saxpy().model(nlohmann::ordered_json::parse(kSaxpyModel)).build();
  REQUIRE(d.has_model());
  REQUIRE(d.model->locals.size() == 2);
  CHECK(d.model->locals[0].first == "base"); // the section's order: "i" reads "base"
  CHECK(d.model->global.size() == 3);

  const Problem p = d.complete({{"n", 1 << 20}});
  const AccessPattern a = d.access_pattern({{"BLOCK", 256}, {"ITEMS", 1}}, p, h100());
  CHECK(a.block_threads == 256);
  CHECK(a.blocks == 4096);
  // The same section through a description file: the same description.
  const auto folder = std::filesystem::temp_directory_path() / ("memtune-builder-model-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  { std::ofstream(folder / "saxpy.cu") << kSaxpy; }
  const KernelDescription back = description_from_json(d.to_json(), "saxpy.json", folder);
  std::filesystem::remove_all(folder);
  REQUIRE(back.has_model());
  CHECK(back.to_json() == d.to_json());
  const AccessPattern b = back.access_pattern({{"BLOCK", 256}, {"ITEMS", 1}}, p, h100());
  CHECK(b.warp_instructions_per_block == a.warp_instructions_per_block);
  CHECK(b.loads_in_flight_per_thread == a.loads_in_flight_per_thread);

  // Its errors are the file reader's and the validator's, naming the field.
  auto bad = nlohmann::ordered_json::parse(kSaxpyModel);
  bad["global"][0]["acces"] = "load";
  CHECK_THROWS_WITH_AS((void)saxpy().model(bad), doctest::Contains("description 'saxpy': field 'model.global[0].acces': unknown field"),
                       DescriptionError);
  bad = nlohmann::ordered_json::parse(kSaxpyModel);
  bad["global"][1]["buffer"] = "z";
  CHECK_THROWS_WITH_AS((void)saxpy().model(bad).build(), doctest::Contains("model.global[1].buffer"), DescriptionError);
}

TEST_CASE("hooks: model, baselines, default configuration and a C++ reference") {
  Fill layout_fill{Fill::Kind::custom};
  layout_fill.custom = [](const FillRequest&, std::span<std::byte> out) { std::fill(out.begin(), out.end(), std::byte{1}); };
  layout_fill.depends_on = {"ITEMS"};
  const KernelDescription d =
      saxpy()
          .buffer("w", ElementType::u8, "n", BufferRole::in, layout_fill)
          .access_pattern([](const search::Config&, const Problem&, const Target&) { return AccessPattern{}; })
          .baseline("cublas", [](const BaselineContext&) -> std::unique_ptr<Baseline> { return nullptr; })
          .default_config([](const Problem&, const Target&) { return search::Config{{"BLOCK", 512}, {"ITEMS", 2}}; })
          .verify_with([](const ReferenceRequest&) { return std::vector<ExpectedOutput>{}; }, {"ITEMS"})
          .build();
  CHECK(d.has_model());
  CHECK(d.baseline_names() == std::vector<std::string>{"cublas"});
  CHECK_NOTHROW(d.check_baseline_names({"cublas"}));
  CHECK_THROWS_WITH_AS(d.check_baseline_names({"cutlass"}), doctest::Contains("unknown baseline 'cutlass' for saxpy (known: cublas)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(saxpy().build().check_baseline_names({"cublas"}), doctest::Contains("(it has none)"),
                       std::invalid_argument);
  const Problem p = d.complete({});
  CHECK(d.default_config(p, h100()) == search::Config{{"BLOCK", 512}, {"ITEMS", 2}});
  // The JSON form says what only C++ can give.
  const auto j = d.to_json();
  CHECK(j.at("verify").at("callback") == "C++");
  CHECK(j.at("verify").at("depends_on") == nlohmann::ordered_json::array({"ITEMS"}));
  CHECK(j.at("arguments")[4].at("fill").at("custom") == "C++");
}

TEST_CASE("the JSON default is used where valid, else the first valid configuration") {
  const KernelDescription d = saxpy().default_config(nlohmann::json{{"BLOCK", 512}, {"ITEMS", 4}}).build();
  CHECK(d.default_config(d.complete({}), h100()) == search::Config{{"BLOCK", 512}, {"ITEMS", 4}});
  Target small = h100();
  small.max_threads_per_block = 256;
  CHECK(d.default_config(d.complete({}), small) == search::Config{{"BLOCK", 128}, {"ITEMS", 1}});
  small.max_threads_per_block = 64;
  CHECK_THROWS_WITH_AS(d.default_config(d.complete({}), small), doctest::Contains("no configuration is valid"),
                       std::invalid_argument);
  // ... and says which rule rejected them, with the target's limit in it.
  CHECK_THROWS_WITH_AS(d.default_config(d.complete({}), small),
                       doctest::Contains("it fails): 9 fail threads per block above the device limit "
                                         "(BLOCK <= 64))"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(d.reference_configuration(d.complete({}), small), doctest::Contains("no configuration is valid"),
                       std::invalid_argument);
}

TEST_CASE("a constraint whose breakers are duplicates: its space's same_kernel gives the configuration the space keeps") {
  // ITEMS that leave one block at this n are the same launch as ITEMS 1 here
  // (a made-up rule with the fdtd zfill's shape: duplicates by problem size).
  KernelBuilder b = saxpy();
  b.constraint("ITEMS == 1 || ceil_div(n, BLOCK * ITEMS) > 1", "ITEMS that leave one block is ITEMS 1",
               {{"ITEMS", "1"}});
  const KernelDescription d = b.build();
  // What the lookup maps is no part of the kernel: its fingerprint (profile entries, journals) stays.
  CHECK(d.fingerprint() ==
        saxpy().constraint("ITEMS == 1 || ceil_div(n, BLOCK * ITEMS) > 1", "ITEMS that leave one block is ITEMS 1")
            .build()
            .fingerprint());
  const search::Space small = d.space(d.complete({{"n", 512}}), h100());
  // 512 elements in blocks of 512 x 2: one block, so ITEMS 2 is a duplicate of ITEMS 1.
  const search::Config duplicate{{"BLOCK", 512}, {"ITEMS", 2}};
  REQUIRE(small.violation(duplicate));
  REQUIRE(small.broken_constraint(duplicate) != nullptr);
  const auto here = small.same_kernel(duplicate);
  REQUIRE(here);
  CHECK(*here == search::Config{{"BLOCK", 512}, {"ITEMS", 1}});
  // A valid configuration is itself; one breaking a plain constraint has no same kernel.
  CHECK(small.same_kernel({{"BLOCK", 128}, {"ITEMS", 2}}) == search::Config{{"BLOCK", 128}, {"ITEMS", 2}});
  Target narrow = h100();
  narrow.max_threads_per_block = 256;
  const search::Space narrow_space = d.space(d.complete({{"n", 1 << 20}}), narrow);
  CHECK_FALSE(narrow_space.same_kernel({{"BLOCK", 512}, {"ITEMS", 1}}));
  // The saved form too (a profile entry's configuration); one that does not parse has none.
  CHECK(small.same_kernel_of_saved({{"BLOCK", 512}, {"ITEMS", 2}}) == search::Config{{"BLOCK", 512}, {"ITEMS", 1}});
  CHECK_FALSE(small.same_kernel_of_saved({{"BLOCK", "wide"}, {"ITEMS", 2}}));

  // The file form carries it: {"expr", "reason", "same_as": {"ITEMS": 1}}, read back equal.
  const auto folder = std::filesystem::temp_directory_path() / ("memtune-same-as-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  { std::ofstream(folder / "saxpy.cu") << kSaxpy; }
  const nlohmann::ordered_json j = d.to_json();
  CHECK(j.at("constraints").at(1).at("same_as").dump() == R"({"ITEMS":1})");
  const KernelDescription back = description_from_json(j, "saxpy.json", folder);
  CHECK(back.to_json() == j);
  REQUIRE(back.constraints.back().same_as.size() == 1);
  CHECK(back.constraints.back().same_as.front() == std::pair<std::string, std::string>{"ITEMS", "1"});
  // Text in the file reads as the same value.
  nlohmann::ordered_json text = j;
  text["constraints"][1]["same_as"] = {{"ITEMS", "1"}};
  CHECK(description_from_json(text, "saxpy.json", folder).constraints.back().same_as == back.constraints.back().same_as);
  nlohmann::ordered_json empty = j;
  empty["constraints"][1]["same_as"] = nlohmann::ordered_json::object();
  CHECK_THROWS_WITH_AS((void)description_from_json(empty, "saxpy.json", folder),
                       doctest::Contains("field 'constraints[1].same_as': names no parameter"), DescriptionError);
  nlohmann::ordered_json fraction = j;
  fraction["constraints"][1]["same_as"] = {{"ITEMS", 1.5}};
  CHECK_THROWS_WITH_AS((void)description_from_json(fraction, "saxpy.json", folder),
                       doctest::Contains("field 'constraints[1].same_as.ITEMS': expected a whole number, true/false or a "
                                         "value's label (a string), got number"),
                       DescriptionError);
  std::filesystem::remove_all(folder);

  // Its parameters are checked as a default's are.
  CHECK_THROWS_WITH_AS((void)saxpy().constraint("ITEMS == 1", "", {{"WIDTH", "1"}}).build(),
                       doctest::Contains("field 'constraints[1].same_as.WIDTH': 'WIDTH' is not a tunable parameter"),
                       DescriptionError);
  CHECK_THROWS_WITH_AS((void)saxpy().constraint("ITEMS == 1", "", {{"ITEMS", "3"}}).build(),
                       doctest::Contains("field 'constraints[1].same_as.ITEMS': '3' is not a value of ITEMS (values: 1, 2, 4)"),
                       DescriptionError);
}
