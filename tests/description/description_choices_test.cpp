// Choices a description makes per configuration or per problem: the kernel
// chosen by a condition (`source.kernel` as a list; matvec's two kernels) and
// an integer parameter's values kept per problem and GPU (`values_if`; matvec's
// threads_per_row), in the file format, the builder, the space and the launch.
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>
#include <memtune/model/target_catalog.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace memtune;
using nlohmann::ordered_json;

namespace {

const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

const Target& h100() {
  static const model::TargetCatalog catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return catalog.find("h100-sxm");
}

ordered_json transpose() {
  std::ifstream in(kAssets / "transpose.json");
  return ordered_json::parse(in);
}

KernelDescription read(const ordered_json& doc) { return description_from_json(doc, "k.json", kAssets); }

// The error a document gets: "field: reason".
std::string error_of(const ordered_json& doc) {
  try {
    (void)read(doc);
  } catch (const DescriptionError& e) {
    return e.field() + ": " + e.reason();
  }
  FAIL("the description was accepted: " << doc.dump());
  return {};
}

// transpose.json with a KIND parameter choosing between two kernels.
ordered_json two_kernels() {
  ordered_json doc = transpose();
  doc["parameters"]["KIND"] = {"naive", "tiled"};
  doc["default"]["KIND"] = "tiled";
  doc["source"]["kernel"] = ordered_json::array(
      {{{"if", "KIND == \"naive\""}, {"name", "transpose_naive<{TILE}>"}}, {{"name", "transpose<{TILE}, {ROWS}, {PAD}>"}}});
  return doc;
}

} // namespace

TEST_CASE("source.kernel as a list: the first choice whose condition holds names the kernel") {
  const KernelDescription d = read(two_kernels());
  const Problem p = d.complete({});
  const search::Config naive{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}, {"KIND", 0}};
  const search::Config tiled{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}, {"KIND", 1}};
  CHECK(d.launch(naive, p, h100()).name_expression == "transpose_naive<32>");
  CHECK(d.launch(tiled, p, h100()).name_expression == "transpose<32, 8, 1>");

  // The JSON form round-trips, choices and all.
  const ordered_json written = d.to_json();
  REQUIRE(written["source"]["kernel"].is_array());
  CHECK(written["source"]["kernel"].size() == 2);
  const KernelDescription again = description_from_json(written, "again.json", kAssets);
  CHECK(again.launch(naive, p, h100()).name_expression == "transpose_naive<32>");
  CHECK(again.to_json() == written);

  // The builder says the same.
  const KernelDescription built = KernelBuilder("two")
                                      .source("k.cu", "__global__ void a() {}")
                                      .kernel_if("KIND == \"naive\"", "transpose_naive<{TILE}>")
                                      .kernel("transpose<{TILE}>")
                                      .parameter(search::Axis::ordinal("TILE", {16, 32}))
                                      .parameter(search::Axis::categorical("KIND", {"naive", "tiled"}))
                                      .buffer("out", ElementType::f32, "16", BufferRole::out)
                                      .verify_with_config({{"TILE", 16}, {"KIND", "naive"}}, {0.0, 0.0})
                                      .build();
  CHECK(built.launch({{"TILE", 16}, {"KIND", 0}}, {}, h100()).name_expression == "transpose_naive<16>");
  CHECK(built.launch({{"TILE", 16}, {"KIND", 1}}, {}, h100()).name_expression == "transpose<16>");
}

TEST_CASE("source.kernel as a list: errors name the choice") {
  ordered_json doc = two_kernels();
  doc["source"]["kernel"][1]["if"] = "KIND == \"tiled\"";
  CHECK(error_of(doc).rfind("source.kernel[1].if: unknown field (known here: name)", 0) == 0);

  doc = two_kernels();
  doc["source"]["kernel"][0].erase("if");
  CHECK(error_of(doc).rfind("source.kernel[0]", 0) == 0);

  doc = two_kernels();
  doc["source"]["kernel"] = ordered_json::array();
  CHECK(error_of(doc).rfind("source.kernel: an empty list", 0) == 0);

  doc = two_kernels();
  doc["source"]["kernel"][0]["if"] = "KIND == \"fast\"";
  CHECK(error_of(doc).rfind("source.kernel[0].if: ", 0) == 0);

  doc = two_kernels();
  doc["source"]["kernel"][1]["name"] = "transpose<{DEPTH}>";
  CHECK(error_of(doc).rfind("source.kernel[1].name: unknown name 'DEPTH'", 0) == 0);
}

TEST_CASE("values_if keeps an integer parameter's values per problem; none left prunes it") {
  ordered_json doc = transpose();
  doc["parameters"]["ROWS"] = {{"values", {2, 4, 8, 16}}, {"values_if", "ROWS * 64 <= rows"}};
  const KernelDescription d = read(doc);
  CHECK(d.space(d.complete({{"rows", 128}}), h100()).axis("ROWS").values == std::vector<std::int64_t>{2});
  CHECK(d.space(d.complete({{"rows", 1000}}), h100()).axis("ROWS").values == std::vector<std::int64_t>{2, 4, 8});
  const search::Space none = d.space(d.complete({{"rows", 64}}), h100());
  CHECK(none.axes().size() == 2);
  REQUIRE(none.pruned().size() == 1);
  CHECK(none.pruned()[0].name == "ROWS");
  CHECK(none.pruned()[0].reason.find("no value where") != std::string::npos);
  CHECK(d.to_json()["parameters"]["ROWS"]["values_if"] == "((ROWS * 64) <= rows)");

  doc["parameters"]["ROWS"]["values_if"] = "ROWS <= TILE";
  CHECK(error_of(doc).find("parameters.ROWS.values_if: reads the tunable parameter 'TILE'") == 0);
  doc = transpose();
  doc["parameters"]["KIND"] = {{"values", {"a", "b"}}, {"values_if", "KIND == \"a\""}};
  doc["default"]["KIND"] = "a";
  CHECK(error_of(doc) == "parameters.KIND.values_if: only integer parameters have their values filtered");
}

TEST_CASE("only_if, values_if and pruned_reason that cannot be evaluated for the problem name the file and field") {
  const auto space_error = [](const ordered_json& doc, std::int64_t rows) {
    const KernelDescription d = read(doc);
    try {
      (void)d.space(d.complete({{"rows", rows}}), h100());
    } catch (const DescriptionError& e) {
      return std::string(e.what());
    }
    return std::string("nothing thrown");
  };
  ordered_json doc = transpose();
  doc["parameters"]["PAD"] = {{"values", {0, 1}}, {"only_if", "rows / (rows - 2K) > 0"}};
  CHECK(space_error(doc, 1024) == "nothing thrown");
  CHECK(space_error(doc, 2048) ==
        "k.json: field 'parameters.PAD.only_if': expression (rows / (rows - 2048)): division by zero");
  doc["parameters"]["PAD"] = {{"values", {0, 1}}, {"only_if", "rows < 2K"}, {"pruned_reason", "{rows % (rows - 2K)}"}};
  CHECK(space_error(doc, 2048).starts_with("k.json: field 'parameters.PAD.pruned_reason': "));
  doc["parameters"]["PAD"] = {{"values", {0, 1}}, {"values_if", "PAD <= rows / (rows - 2K)"}};
  CHECK(space_error(doc, 2048) ==
        "k.json: field 'parameters.PAD.values_if': expression (rows / (rows - 2048)): division by zero");
}

TEST_CASE("same_as naming a value values_if drops, or a parameter only_if prunes: the constraint is a plain one there") {
  // ROWS 2 is on the axis from 1000 rows on; below 1500 rows, ROWS above 2 is ROWS 2.
  ordered_json doc = transpose();
  doc["parameters"]["ROWS"] = {{"values", {2, 4, 8, 16}}, {"values_if", "ROWS > 2 || rows >= 1000"}};
  doc["constraints"].push_back(
      {{"expr", "ROWS == 2 || rows >= 1500"}, {"reason", "ROWS above 2 is ROWS 2 here"}, {"same_as", {{"ROWS", 2}}}});
  const KernelDescription d = read(doc);
  const search::Config rows8{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}};
  const search::Space kept = d.space(d.complete({{"rows", 1200}}), h100());
  CHECK(kept.same_kernel(rows8) == search::Config{{"TILE", 32}, {"ROWS", 2}, {"PAD", 1}});
  const search::Space dropped = d.space(d.complete({{"rows", 512}}), h100());
  REQUIRE(dropped.violation(rows8));
  CHECK_FALSE(dropped.same_kernel(rows8)); // ROWS 2 is not on the axis at 512 rows

  // PAD exists from 1000 columns on; below 1500 rows, a TILE other than 32 is TILE 32 with PAD 1.
  doc = transpose();
  doc["parameters"]["PAD"] = {{"values", {0, 1}}, {"only_if", "cols >= 1000"}};
  doc["constraints"].push_back({{"expr", "TILE == 32 || rows >= 1500"},
                                {"reason", "another TILE is TILE 32 with PAD 1 here"},
                                {"same_as", {{"TILE", 32}, {"PAD", 1}}}});
  const KernelDescription p = read(doc);
  const search::Space with_pad = p.space(p.complete({{"rows", 512}, {"cols", 1024}}), h100());
  CHECK(with_pad.same_kernel({{"TILE", 16}, {"ROWS", 8}, {"PAD", 0}}) ==
        search::Config{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}});
  const search::Space pruned = p.space(p.complete({{"rows", 512}, {"cols", 512}}), h100());
  REQUIRE(pruned.pruned().size() == 1);
  const search::Config tile16{{"TILE", 16}, {"ROWS", 8}};
  REQUIRE(pruned.violation(tile16));
  CHECK_FALSE(pruned.same_kernel(tile16)); // PAD is pruned at 512 columns
  CHECK(pruned.same_kernel({{"TILE", 32}, {"ROWS", 8}}) == search::Config{{"TILE", 32}, {"ROWS", 8}});
}
