// The description file format: what it accepts, and every error, which must
// name the file, the field (a JSON path) and the reason.
#include <memtune/description/description_json.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "description_json_support.hpp"

using namespace memtune;
using nlohmann::ordered_json;
using namespace description_json_test;

TEST_CASE("a complete description reads; integers may be size text") {
  ordered_json doc = transpose();
  doc["problem"]["rows"]["default"] = "16M";
  doc["problem"]["rows"]["min"] = "1K";
  doc["problem"]["cols"] = 4096; // a variable given by its default alone
  const KernelDescription d = read(doc);
  CHECK(d.problem[0].default_value == 16777216);
  CHECK(d.problem[0].min == 1024);
  CHECK(d.problem[1].default_value == 4096);
  CHECK_FALSE(d.problem[1].is_size);
  REQUIRE(d.parameters.size() == 3);
  CHECK(d.parameters[2].axis.description == "extra shared-memory column per tile row");
  CHECK(d.verify.mode == VerifySpec::Mode::reference_config);
  CHECK(d.verify.tolerance.rel == 0.0);
}

TEST_CASE("unknown fields are refused, at any depth, with the fields known there") {
  ordered_json doc = transpose();
  doc["colour"] = "red";
  CHECK_FAILS(doc, "colour", "unknown field (known here: schema_version, name");
  doc = transpose();
  doc["arguments"][1]["rol"] = "in";
  CHECK_FAILS(doc, "arguments[1].rol", "unknown field");
  doc = transpose();
  doc["launch"]["threads"] = 256;
  CHECK_FAILS(doc, "launch.threads", "known here: block, grid, shared_memory");
  doc = transpose();
  doc["verify"]["tolerance"]["relative"] = 0.1;
  CHECK_FAILS(doc, "verify.tolerance.relative", "unknown field");
  doc = transpose();
  doc["parameters"]["PAD"]["default"] = 1;
  CHECK_FAILS(doc, "parameters.PAD.default", "unknown field");
}

TEST_CASE("schema_version must be the integer 1") {
  ordered_json doc = transpose();
  doc.erase("schema_version");
  CHECK_FAILS(doc, "schema_version", "missing");
  doc["schema_version"] = "1";
  CHECK_FAILS(doc, "schema_version", "expected the integer 1, got string");
  doc["schema_version"] = 2;
  CHECK_FAILS(doc, "schema_version", "2 is not supported");
  doc["schema_version"] = 1.0;
  CHECK_FAILS(doc, "schema_version", "expected the integer 1");
}

TEST_CASE("a bad expression names the field and the position") {
  ordered_json doc = transpose();
  doc["constraints"][1] = "TILE * ) <= 4";
  const Failure f = failure(doc);
  CHECK(f.field == "constraints[1]");
  CHECK(f.reason.find("syntax error at column 8: expected an operand, found ')'") != std::string::npos);
  CHECK(f.reason.find("\n    TILE * ) <= 4\n           ^") != std::string::npos);

  doc = transpose();
  doc["launch"]["grid"][1] = "ceil_div(rows TILE)";
  CHECK_FAILS(doc, "launch.grid[1]", "column 15");
  doc = transpose();
  doc["source"]["kernel"] = "transpose<{TILE}, {ROWS +}, {PAD}>";
  CHECK_FAILS(doc, "source.kernel", "syntax error at column 26 (in {ROWS +})");
  doc = transpose();
  doc["source"]["kernel"] = "transpose<{TILE>";
  CHECK_FAILS(doc, "source.kernel", "never closed");
  doc = transpose();
  doc["constraints"][0] = std::string(30000, '(') + "1" + std::string(30000, ')');
  CHECK_FAILS(doc, "constraints[0]", "nested deeper than");
}

TEST_CASE("a problem variable's default may be any expression of constants, as sizes are") {
  ordered_json doc = transpose();
  doc["problem"]["rows"]["default"] = "4K * 4K";
  doc["problem"]["cols"]["default"] = "(1 << 3)"; // not an operator of the syntax
  CHECK_FAILS(doc, "problem.cols.default", "syntax error");
  doc["problem"]["cols"]["default"] = "ceil_div(1M, 3)";
  const KernelDescription d = read(doc);
  CHECK(d.problem[0].default_value == 16777216);
  CHECK(d.problem[1].default_value == 349526);
  doc["problem"]["cols"]["default"] = "4K * rows";
  CHECK_FAILS(doc, "problem.cols.default", "an expression of constants (\"4K * 4K\")");
  doc["problem"]["cols"]["default"] = "1G * 1G * 1G";
  CHECK_FAILS(doc, "problem.cols.default", "integer overflow");
  doc["problem"]["cols"]["default"] = "1 / 0";
  CHECK_FAILS(doc, "problem.cols.default", "division by zero");
}

TEST_CASE("expressions that stand for exponential trees are refused by field; huge ones are not echoed whole") {
  ordered_json doc = transpose();
  std::string nested = "TILE";
  for (int i = 0; i < 24; ++i) nested = "round_up(ROWS, " + nested + ")";
  doc["constraints"][1] = nested + " <= 1024";
  CHECK_FAILS(doc, "constraints[1]", "expands to more than 65536 terms");

  doc = transpose();
  doc["derived"]["d0"] = "TILE";
  for (int i = 1; i <= 24; ++i)
    doc["derived"]["d" + std::to_string(i)] = "d" + std::to_string(i - 1) + " + d" + std::to_string(i - 1);
  doc["constraints"][1] = "d24 <= 1024";
  const Problem p{{"rows", 1024}, {"cols", 1024}};
  try {
    // Each line is small: the size shows when the values are bound into each other.
    (void)read(doc).space(p, catalogue_target("h100"));
    FAIL("accepted");
  } catch (const DescriptionError& e) {
    CHECK(e.field() == "derived.d16");
    CHECK(std::string(e.what()).find("expands to more than 65536 terms") != std::string::npos);
  }

  doc = transpose();
  std::string big = "TILE";
  for (int i = 0; i < 300'000; ++i) big += " + TILE";
  doc["constraints"][1] = big + " + ) <= 4";
  const Failure f = failure(doc);
  CHECK(f.field == "constraints[1]");
  CHECK(f.what.size() < 1000);
  CHECK(f.reason.find("...") != std::string::npos);
}

TEST_CASE("a constraint dividing by zero says so with the file and the field") {
  ordered_json doc = transpose();
  doc["constraints"][1] = "rows % (TILE - TILE) == 0";
  const KernelDescription d = read(doc);
  const search::Space s = d.space({{"rows", 1024}, {"cols", 1024}}, catalogue_target("h100"));
  CHECK_THROWS_WITH_AS((void)s.is_valid(s.at_index(0)),
                       "k.json: field 'constraints[1]': expression (1024 % (TILE - TILE)): division by zero",
                       std::domain_error);
}

TEST_CASE("type mismatches say what was expected and what was found") {
  ordered_json doc = transpose();
  doc["arguments"][0]["count"] = true;
  CHECK_FAILS(doc, "arguments[0].count", "expected an expression (text or an integer), got boolean");
  doc = transpose();
  doc["parameters"] = ordered_json::array();
  CHECK_FAILS(doc, "parameters", "expected an object, got array");
  doc = transpose();
  doc["name"] = 5;
  CHECK_FAILS(doc, "name", "expected a string, got number");
  doc = transpose();
  doc["problem"]["rows"]["default"] = 1.5;
  CHECK_FAILS(doc, "problem.rows.default", "expected an integer, got number");
  doc = transpose();
  doc["problem"]["rows"]["default"] = "rows * 2";
  CHECK_FAILS(doc, "problem.rows.default", "an expression of constants (\"4K * 4K\"), got string (\"rows * 2\"), which reads 'rows'");
  doc = transpose();
  doc["parameters"]["TILE"] = ordered_json::array({16, "32"});
  CHECK_FAILS(doc, "parameters.TILE[1]", "expected an integer like the first value");
  doc = transpose();
  doc["parameters"]["TILE"] = ordered_json::array({32, 16});
  CHECK_FAILS(doc, "parameters.TILE", "strictly increasing");
  doc = transpose();
  doc["arguments"][1]["role"] = "input";
  CHECK_FAILS(doc, "arguments[1].role", "'input' is not a role (in, out, inout, scratch)");
  doc = transpose();
  doc["arguments"][1]["buffer"] = "float8";
  CHECK_FAILS(doc, "arguments[1].buffer", "unknown element type 'float8'");
  doc = transpose();
  doc["arguments"][2]["value"] = 0.5;
  CHECK_FAILS(doc, "arguments[2].value", "an integer scalar (int32) needs an integer expression");
  doc = transpose();
  doc["arguments"][2]["scalar"] = "float";
  doc["arguments"][2]["buffer"] = "float";
  CHECK_FAILS(doc, "arguments[2]", "either {\"buffer\": TYPE, ...} or {\"scalar\": TYPE, ...}");
  doc = transpose();
  doc["launch"]["block"] = ordered_json::array({1, 2, 3, 4});
  CHECK_FAILS(doc, "launch.block", "1 to 3 expressions");
  doc = transpose();
  doc["arguments"][1]["fill"] = {{"random", {0, 1}}, {"constant", 1}};
  CHECK_FAILS(doc, "arguments[1].fill", "one of random or constant");
  doc = transpose();
  doc["launch"]["cooperative"] = "yes";
  CHECK_FAILS(doc, "launch.cooperative", "expected true or false, got string");
}

TEST_CASE("a cooperative launch is read, written back, reaches the launch and changes the fingerprint") {
  ordered_json doc = transpose();
  const KernelDescription plain = read(doc);
  doc["launch"]["cooperative"] = true;
  const KernelDescription cooperative = read(doc);
  const Problem p = cooperative.complete({});
  const search::Config c = cooperative.default_config(p, catalogue_target("h100"));
  CHECK(cooperative.launch(c, p, catalogue_target("h100")).cooperative);
  CHECK_FALSE(plain.launch(c, p, catalogue_target("h100")).cooperative);
  CHECK(cooperative.to_json().at("launch").at("cooperative") == true);
  CHECK_FALSE(plain.to_json().at("launch").contains("cooperative")); // older descriptions keep their fingerprint
  CHECK(cooperative.fingerprint() != plain.fingerprint());
  CHECK(read(cooperative.to_json()).launch(c, p, catalogue_target("h100")).cooperative);
}

TEST_CASE("names: unknown, clashing, or read where they cannot be") {
  ordered_json doc = transpose();
  doc["constraints"][1] = "TILES * 2 <= 64";
  CHECK_FAILS(doc, "constraints[1]", "unknown name 'TILES' (tunable parameters: PAD, ROWS, TILE; problem variables: cols, rows; "
                                     "derived values: threads; device attributes: ");
  doc = transpose();
  doc["parameters"]["rows"] = ordered_json::array({1, 2});
  CHECK_FAILS(doc, "parameters.rows", "the name 'rows' is already taken by problem.rows");
  doc = transpose();
  doc["derived"]["sm_count"] = "4";
  CHECK_FAILS(doc, "derived.sm_count", "already taken by device attribute");
  doc = transpose();
  doc["parameters"]["max"] = ordered_json::array({1, 2});
  CHECK_FAILS(doc, "parameters.max", "a word of the expression language");
  doc = transpose();
  doc["problem"]["2d"] = 4;
  CHECK_FAILS(doc, "problem.2d", "is not a name");
  doc = transpose();
  doc["derived"] = {{"a", "b * 2"}, {"b", "TILE"}};
  CHECK_FAILS(doc, "derived.a", "the derived value 'b' is defined after this one");
  doc = transpose();
  doc["parameters"]["PAD"]["only_if"] = "TILE > 16";
  CHECK_FAILS(doc, "parameters.PAD.only_if", "reads the tunable parameter 'TILE', but its value must not depend on the configuration");
  doc = transpose();
  doc["bytes_moved"] = "threads * 4";
  CHECK_FAILS(doc, "bytes_moved", "reads the derived value 'threads' (which reads a tunable parameter)");
  doc = transpose();
  doc["bytes_moved"] = "sm_count * 4";
  CHECK_FAILS(doc, "bytes_moved", "depends on the GPU");
  doc = transpose();
  doc["arguments"][1]["count"] = "rows * (cols + PAD)";
  CHECK_FAILS(doc, "bytes_moved", "missing, and the default (every buffer's bytes) cannot be used: arguments[1].count");
  doc["bytes_moved"] = "2 * rows * cols * 4";
  CHECK(read(doc).bytes_moved({{"rows", 2}, {"cols", 3}}) == 48);
  doc = transpose();
  doc["arguments"][3]["name"] = "rows";
  CHECK_FAILS(doc, "arguments[3].name", "the argument 'rows' is listed twice");
  doc = transpose();
  doc["source"]["defines"] = {{"2X", "{TILE}"}};
  CHECK_FAILS(doc, "source.defines.2X", "not a macro name");
}

TEST_CASE("labels must be labels of the enumeration they are compared with") {
  ordered_json doc = transpose();
  doc["parameters"]["ORDER"] = ordered_json::array({"row", "col"});
  doc["default"]["ORDER"] = "row";
  doc["constraints"].push_back("ORDER == \"diagonal\"");
  CHECK_FAILS(doc, "constraints[3]", "\"diagonal\" is not a label of 'ORDER' (labels: row, col)");
  doc["constraints"][3] = "TILE == \"row\"";
  CHECK_FAILS(doc, "constraints[3]", "compared with 'TILE', which is not an enumeration");
  doc["constraints"][3] = "\"row\" + 1";
  CHECK_FAILS(doc, "constraints[3]", "can only be compared");
  doc["constraints"][3] = "ORDER == \"col\" || TILE > 16";
  CHECK(read(doc).constraints.size() == 4);
  doc["default"]["ORDER"] = "up";
  CHECK_FAILS(doc, "default.ORDER", "\"up\" is not a value of ORDER (values: row, col)");
  doc = transpose();
  doc["problem"]["layout"] = {{"values", {"col", "row"}}, {"default", "diagonal"}};
  CHECK_FAILS(doc, "problem.layout.default", "\"diagonal\" is not one of: col, row");
}

TEST_CASE("verification must be said, once, and be possible") {
  ordered_json doc = transpose();
  doc.erase("verify");
  CHECK_FAILS(doc, "verify", "missing: say how outputs are checked");
  doc = transpose();
  doc["verify"]["reference_kernel"] = {{"kernel", "k"}, {"block", 32}, {"grid", 1}};
  CHECK_FAILS(doc, "verify", "exactly one of reference_config, reference_kernel and library");
  doc = transpose();
  doc["verify"] = {{"callback", true}};
  CHECK_FAILS(doc, "verify.callback", "a C++ callback cannot come from a file");
  doc = transpose();
  doc["verify"]["reference_config"]["WIDTH"] = 4;
  CHECK_FAILS(doc, "verify.reference_config.WIDTH", "'WIDTH' is not a tunable parameter");
  doc = transpose();
  doc["verify"]["reference_config"]["TILE"] = 48;
  CHECK_FAILS(doc, "verify.reference_config.TILE", "48 is not a value of TILE (values: 16, 32, 64)");
  doc = transpose();
  doc["verify"]["tolerance"]["abs"] = -1;
  CHECK_FAILS(doc, "verify.tolerance", "finite and >= 0");
  doc = transpose();
  doc["verify"] = {{"reference_kernel", {{"kernel", "naive<{TILE}>"}, {"block", 32}, {"grid", 1}}}};
  CHECK_FAILS(doc, "verify.reference_kernel.kernel", "reads the tunable parameter 'TILE'");
  doc["verify"]["reference_kernel"]["kernel"] = "naive";
  doc["verify"]["reference_kernel"]["files"] = {"missing.cu"};
  CHECK_FAILS(doc, "verify.reference_kernel.files[0]", "cannot read");
  doc = transpose();
  doc["arguments"][0]["role"] = "scratch";
  CHECK_FAILS(doc, "arguments", "no out or inout buffer");
  doc = transpose();
  doc["arguments"][0]["fill"] = "random";
  CHECK_FAILS(doc, "arguments[0].fill", "an out buffer is poisoned");
  doc = transpose();
  doc["arguments"][1]["buffer"] = "int";
  doc["arguments"][1]["fill"] = {{"random", {0.5, 2}}};
  CHECK_FAILS(doc, "arguments[1].fill", "not an integer, but the type is int32");
  doc["arguments"][1]["fill"] = {{"constant", 300}};
  doc["arguments"][1]["buffer"] = "uint8";
  CHECK_FAILS(doc, "arguments[1].fill", "300 does not fit in uint8");
  doc = transpose();
  doc["default"].erase("PAD");
  CHECK_FAILS(doc, "default", "no value for the parameter 'PAD'");
  doc = transpose();
  doc["objective"] = "watts";
  CHECK_FAILS(doc, "objective", "string (\"watts\") is not an objective: time, energy or edp");
  doc["objective"] = "edp";
  CHECK(read(doc).objective == "edp");
}

TEST_CASE("source files are read relative to the description; a missing one is named") {
  ordered_json doc = transpose();
  doc["source"]["files"] = {"nothere.cu"};
  const Failure f = failure(doc);
  CHECK(f.field == "source.files[0]");
  CHECK(f.reason.find((kAssets / "nothere.cu").string()) != std::string::npos);
  doc["source"]["files"] = ordered_json::array();
  CHECK_FAILS(doc, "source.files", "no file");
  doc = transpose();
  doc["source"]["files"] = {"transpose.cu", "transpose.cu"};
  CHECK_FAILS(doc, "source.files[1]", "listed twice");
  doc = transpose();
  doc["source"].erase("kernel");
  CHECK_FAILS(doc, "source.kernel", "missing");
}

TEST_CASE("a source file that cannot be opened gives the system's reason: a symbolic link loop is no missing file") {
  const auto dir = std::filesystem::temp_directory_path() / ("memtune-loop-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / "a.cu");
  std::filesystem::remove(dir / "b.cu");
  std::filesystem::create_symlink("b.cu", dir / "a.cu");
  std::filesystem::create_symlink("a.cu", dir / "b.cu");
  ordered_json doc = transpose();
  doc["source"]["files"] = {"a.cu"};
  try {
    (void)description_from_json(doc, "k.json", dir);
    FAIL("a symbolic link loop was read");
  } catch (const DescriptionError& e) {
    CHECK(e.field() == "source.files[0]");
    CHECK_MESSAGE(e.reason().find("cannot open: Too many levels of symbolic links") != std::string::npos, e.what());
  }
  doc["source"]["files"] = {"missing.cu"};
  try {
    (void)description_from_json(doc, "k.json", dir);
  } catch (const DescriptionError& e) {
    CHECK_MESSAGE(e.reason().find("cannot open: no such file") != std::string::npos, e.what());
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("files: JSON syntax errors give the line and column, duplicate keys their path") {
  try {
    (void)load_description(kAssets / "syntax_error.json");
    FAIL("accepted");
  } catch (const DescriptionError& e) {
    CHECK(e.file() == (kAssets / "syntax_error.json").string());
    CHECK(e.line() == 4);
    CHECK(e.field().empty());
    CHECK(e.reason().find("not valid JSON (column 30): syntax error") != std::string::npos);
  }
  try {
    (void)load_description(kAssets / "duplicate_key.json");
    FAIL("accepted");
  } catch (const DescriptionError& e) {
    CHECK(e.field() == "parameters.A");
    CHECK(e.reason() == "the key \"A\" appears twice");
  }
  CHECK_THROWS_WITH_AS(load_description(kAssets / "no_such_file.json"), doctest::Contains("no_such_file.json: cannot open: no such file"),
                       DescriptionError);
  // A hostile document: 30000 nested arrays is an error, never a stack overflow.
  const auto deep = std::filesystem::temp_directory_path() / ("memtune-deep-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(deep);
    out << R"({"schema_version": 1, "name": "deep", "constraints": )" << std::string(30000, '[')
        << std::string(30000, ']') << "}";
  }
  CHECK_THROWS_AS(load_description(deep), DescriptionError);
  std::filesystem::remove(deep);
}

TEST_CASE("the README's example is a valid description (tests/assets/descriptions/saxpy.json is a copy)") {
  const KernelDescription d = load_description(kAssets / "saxpy.json");
  CHECK(d.name == "saxpy");
  CHECK(d.bytes_moved({{"n", 100}}) == 100 * 4 * 3);
  std::ifstream readme(std::filesystem::path(MEMTUNE_TEST_ASSETS_DIR) / "../../README.md");
  std::stringstream text;
  text << readme.rdbuf();
  std::ifstream fixture(kAssets / "saxpy.json");
  std::stringstream json;
  json << fixture.rdbuf();
  CHECK(text.str().find(json.str()) != std::string::npos);
}

TEST_CASE("a description with a number too large for a double is refused with its line") {
  CHECK_THROWS_WITH_AS((void)description_from_text("{\n  \"schema_version\": 1e400\n}", "big.json", "."),
                       doctest::Contains("big.json:2: not valid JSON: number overflow parsing '1e400'"), DescriptionError);
  // Deeper than any reader should recurse: refused while parsing.
  CHECK_THROWS_WITH_AS((void)description_from_text(std::string(100000, '['), "deep.json", "."),
                       doctest::Contains("nested deeper than 256 levels"), DescriptionError);
}
