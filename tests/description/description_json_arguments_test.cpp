// The description file format, continued (description_json_test.cpp): the
// arguments' element types (half, bfloat16, vectors, from a problem
// enumeration), offsets and outputs written in part, and the verify section's
// reduced comparison and host check, each with its errors.
#include <memtune/description/description_json.hpp>

#include <doctest/doctest.h>

#include <filesystem>

#include "description_json_support.hpp"

using namespace memtune;
using nlohmann::ordered_json;
using namespace description_json_test;

TEST_CASE("arguments of half, bfloat16 and vector types, offsets, outputs written in part; their errors") {
  ordered_json doc = transpose();
  doc["arguments"][0] = {{"name", "out"}, {"buffer", "half2"}, {"count", "rows * cols / 2"}, {"offset", "TILE - 4"},
                         {"role", "out"}, {"partial", true}};
  doc["arguments"][1] = {{"name", "in"}, {"buffer", "__nv_bfloat16"}, {"count", "rows * cols"}, {"role", "in"},
                         {"fill", {{"random", {-2, 2}}}}};
  KernelDescription d = read(doc);
  const auto& out = std::get<BufferArgument>(d.arguments[0]);
  CHECK(out.type == vector_type(ElementType::f16, 2));
  CHECK(out.offset.to_string() == "(TILE - 4)");
  CHECK(out.partial);
  CHECK(std::get<BufferArgument>(d.arguments[1]).type == ElementType::bf16);
  // The JSON form reads back the same (the fingerprint's input).
  const ordered_json again = d.to_json();
  CHECK(again["arguments"][0]["buffer"] == "half2");
  CHECK(again["arguments"][0]["offset"] == "(TILE - 4)");
  CHECK(again["arguments"][0]["partial"] == true);
  CHECK(description_from_json(again, "k.json", kAssets).fingerprint() == d.fingerprint());
  // The transpose gives its tolerance: it stays as given. Without one, a half output gets half's.
  CHECK(tolerance_for(d.verify, out.type).rel == 0.0);
  doc["verify"].erase("tolerance");
  d = read(doc);
  CHECK(tolerance_for(d.verify, out.type).rel == doctest::Approx(1e-3));
  CHECK(tolerance_for(d.verify, ElementType::f32).rel == doctest::Approx(1e-5));
  CHECK_FALSE(d.to_json()["verify"].contains("tolerance"));

  ordered_json bad = transpose();
  bad["arguments"][0]["buffer"] = "float5";
  CHECK_FAILS(bad, "arguments[0].buffer", "unknown element type 'float5'");
  bad = transpose();
  bad["arguments"][0]["offset"] = "NOPE";
  CHECK_FAILS(bad, "arguments[0].offset", "NOPE");
  bad = transpose();
  bad["arguments"][1]["partial"] = true;
  CHECK_FAILS(bad, "arguments[1].partial", "only an out buffer is written in part");
  bad = transpose();
  bad["arguments"][1]["buffer"] = "half";
  bad["arguments"][1]["fill"] = {{"constant", 70000}};
  CHECK_FAILS(bad, "arguments[1].fill", "does not fit in half");
  bad = transpose();
  bad["arguments"][2] = {{"name", "rows"}, {"scalar", "float4"}, {"value", 1.0}};
  CHECK_FAILS(bad, "arguments[2].scalar", "a scalar of float4 is not supported");
}

TEST_CASE("an element type from a problem enumeration: \"buffer\": \"{T}\"") {
  ordered_json doc = transpose();
  doc["problem"]["T"] = {{"values", {"float", "int", "half"}}, {"default", "int"}};
  doc["arguments"][0]["buffer"] = "{T}";
  doc["arguments"][1]["buffer"] = "{T}";
  const KernelDescription d = read(doc);
  const auto& out = std::get<BufferArgument>(d.arguments[0]);
  CHECK(out.type_from == "T");
  CHECK(out.type == ElementType::i32); // the default label's
  Problem problem = d.complete({});
  problem["T"] = 2;
  const KernelDescription half = d.resolve_element_types(problem);
  CHECK(std::get<BufferArgument>(half.arguments[0]).type == ElementType::f16);
  CHECK(d.bytes_moved(problem) == 2 * 1024 * 1024 * 2);
  problem["T"] = 0;
  CHECK(d.bytes_moved(problem) == 2 * 1024 * 1024 * 4);
  CHECK(d.to_json()["arguments"][0]["buffer"] == "{T}");

  ordered_json bad = doc;
  bad["arguments"][0]["buffer"] = "{U}";
  CHECK_FAILS(bad, "arguments[0].buffer", "'U' is not a problem variable");
  bad = doc;
  bad["arguments"][0]["buffer"] = "{rows}";
  CHECK_FAILS(bad, "arguments[0].buffer", "'rows' is a number, not a problem enumeration");
  bad = doc;
  bad["problem"]["T"]["values"] = {"float", "complex"};
  bad["problem"]["T"]["default"] = "float";
  CHECK_FAILS(bad, "problem.T.values", "'complex' is not an element type");
}

TEST_CASE("verify: a reduced comparison and a host check from a shared library; their errors") {
  ordered_json doc = transpose();
  doc["verify"]["reduce"] = ordered_json::array({{{"buffer", "out"}, {"op", "sum"}, {"count", "ceil_div(cols, TILE)"},
                                                  {"tolerance", {{"abs", 0.5}}}}});
  KernelDescription d = read(doc);
  REQUIRE(d.verify.reduced.size() == 1);
  CHECK(d.verify.reduced[0].op == ReducedOutput::Op::sum);
  CHECK(d.verify.reduced[0].tolerance->abs == 0.5);
  CHECK(d.to_json()["verify"]["reduce"][0]["count"] == "ceil_div(cols, TILE)");

  ordered_json bad = doc;
  bad["verify"]["reduce"][0]["op"] = "mean";
  CHECK_FAILS(bad, "verify.reduce[0].op", "'mean' is not a reduction (sum, min, max, count)");
  bad = doc;
  bad["verify"]["reduce"][0]["buffer"] = "in";
  CHECK_FAILS(bad, "verify.reduce[0].buffer", "'in' is not an out or inout buffer argument");
  bad = doc;
  bad["verify"]["reduce"][0]["count"] = "BLOCKS";
  CHECK_FAILS(bad, "verify.reduce[0].count", "BLOCKS");

  doc = transpose();
  doc["verify"] = {{"library", MEMTUNE_TEST_HOST_CHECK_LIBRARY}, {"function", "check_scaled"}};
  d = read(doc);
  CHECK(d.verify.mode == VerifySpec::Mode::host_check);
  CHECK(d.verify.host_check->function == "check_scaled");
  CHECK(d.verify.host_check->library == std::filesystem::path(MEMTUNE_TEST_HOST_CHECK_LIBRARY));
  bad = doc;
  bad["verify"]["library"] = "missing_check.so";
  CHECK_FAILS(bad, "verify.library", "cannot find " + (kAssets / "missing_check.so").string());
  bad = doc;
  bad["verify"].erase("function");
  CHECK_FAILS(bad, "verify.function", "missing");
  bad = doc;
  bad["verify"]["reference_config"] = ordered_json::object();
  CHECK_FAILS(bad, "verify", "exactly one of reference_config, reference_kernel and library");
  bad = doc;
  bad["verify"]["reduce"] = ordered_json::array({{{"buffer", "out"}, {"op", "sum"}, {"count", 1}}});
  CHECK_FAILS(bad, "verify.reduce[0]", "compares with a reference");
}
