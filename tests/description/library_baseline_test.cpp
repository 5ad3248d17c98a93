// A description's baselines as data (LibraryBaseline, JSON "baselines"): the
// calls memtune provides, the operands each needs, and the errors that name
// the field when a file binds them wrongly.
#include <memtune/description/kernel_description.hpp>

#include "description_json_support.hpp"

#include <algorithm>

using namespace description_json_test;

namespace {

ordered_json with_sgemv() {
  ordered_json doc = transpose();
  doc["baselines"] = ordered_json::parse(R"({"cublas": {"call": "cublas_sgemv",
      "buffers": {"A": "in", "x": "in", "y": "out"},
      "values": {"rows": "rows", "cols": "cols", "row_major": "0"}}})");
  return doc;
}

} // namespace

TEST_CASE("library baselines: cublas_sgemv is known with its operands") {
  const auto& calls = library_baseline_calls();
  const auto sgemv = std::find_if(calls.begin(), calls.end(), [](const auto& c) { return c.name == "cublas_sgemv"; });
  REQUIRE(sgemv != calls.end());
  CHECK(sgemv->buffers == std::vector<std::string>{"A", "x", "y"});
  CHECK(sgemv->values == std::vector<std::string>{"rows", "cols", "row_major"});
}

TEST_CASE("library baselines: read from a file, named by --compare, written back the same") {
  const KernelDescription d = read(with_sgemv());
  CHECK(d.baseline_names() == std::vector<std::string>{"cublas"});
  CHECK_NOTHROW(d.check_baseline_names({"cublas"}));
  CHECK(d.not_data_because().empty()); // a baseline as data travels to the worker
  const KernelDescription back = read(d.to_json());
  CHECK(back.fingerprint() == d.fingerprint());
  CHECK(back.baselines.at("cublas").buffers == d.baselines.at("cublas").buffers);
  CHECK(back.baselines.at("cublas").values.at("cols").to_string() == "cols");
}

TEST_CASE("library baselines: a wrong call, operand, buffer or expression names the field") {
  ordered_json doc = with_sgemv();
  doc["baselines"]["cublas"]["call"] = "cublas_dgemm";
  CHECK_FAILS(doc, "baselines.cublas.call", "'cublas_dgemm' is not a baseline memtune provides (known: cublas_sgemv)");

  doc = with_sgemv();
  doc["baselines"]["cublas"]["buffers"].erase("x");
  CHECK_FAILS(doc, "baselines.cublas.buffers", "cublas_sgemv needs exactly the buffers A, x, y");

  doc = with_sgemv();
  doc["baselines"]["cublas"]["values"]["alpha"] = "1";
  CHECK_FAILS(doc, "baselines.cublas.values", "needs exactly the values rows, cols, row_major");

  doc = with_sgemv();
  doc["baselines"]["cublas"]["buffers"]["y"] = "rows";
  CHECK_FAILS(doc, "baselines.cublas.buffers.y", "'rows' is not a buffer argument");

  doc = with_sgemv();
  doc["baselines"]["cublas"]["values"]["rows"] = "TILE * rows";
  CHECK_FAILS(doc, "baselines.cublas.values.rows", "TILE");

  doc = with_sgemv();
  doc["baselines"]["cublas"]["colour"] = 1;
  CHECK_FAILS(doc, "baselines.cublas.colour", "unknown field");

  doc = with_sgemv();
  doc["baselines"] = 3;
  CHECK_FAILS(doc, "baselines", "");
}
