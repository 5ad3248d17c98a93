#include <memtune/io/json_document.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>

using namespace memtune;
using nlohmann::json;

namespace {

InputError parse_error(const std::string& text, const io::JsonLimits& limits = {}) {
  try {
    (void)io::parse_json(text, "doc.json", limits);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no error");
  return InputError("", 0, "", "");
}

} // namespace

TEST_CASE("syntax errors give the line and column") {
  const InputError e = parse_error("{\n  \"a\": 1,\n  \"b\": ,\n}\n");
  CHECK(e.file() == "doc.json");
  CHECK(e.line() == 3);
  CHECK(std::string(e.what()).find("doc.json:3: not valid JSON (line 3, column 8)") == 0);
  CHECK(std::string(e.what()).find("[json.exception") == std::string::npos);
}

TEST_CASE("a number that overflows a double is refused with its line, not as a bare 'number overflow'") {
  const InputError e = parse_error("{\n  \"time_s\": 1e400\n}");
  CHECK(e.line() == 2);
  CHECK(std::string(e.what()).find("number overflow parsing '1e400'") != std::string::npos);
}

TEST_CASE("a key given twice is refused with its field and line, never last-one-wins") {
  const InputError top = parse_error("{\n  \"a\": 1,\n  \"a\": 2\n}");
  CHECK(top.field() == "a");
  CHECK(top.line() == 3);
  CHECK(std::string(top.what()) == "doc.json:3: field 'a': the key \"a\" appears twice");
  const InputError nested = parse_error(R"({"entries": [{"device": {"sm_count": 1}}, {"device": {"sm_count": 1, "sm_count": 2}}]})");
  CHECK(nested.field() == "entries[1].device.sm_count");
  // The same key in two objects is no duplicate.
  CHECK(io::parse_json(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "doc.json").root().size() == 3);
}

TEST_CASE("without_json_prefix leaves the reason only") {
  CHECK(io::without_json_prefix("[json.exception.type_error.302] type must be number, but is string") ==
        "type must be number, but is string");
  CHECK(io::without_json_prefix("plain") == "plain");
}

TEST_CASE("nesting deeper than the limit is refused before anything recurses over it") {
  std::string deep(100000, '[');
  const InputError e = parse_error(deep);
  CHECK(std::string(e.what()).find("nested deeper than 256 levels") != std::string::npos);
  io::JsonLimits shallow;
  shallow.max_depth = 3;
  CHECK_NOTHROW((void)io::parse_json("[[[1]]]", "ok.json", shallow));
  CHECK(parse_error("[[[[1]]]]", shallow).message().find("nested deeper than 3 levels") != std::string::npos);
}

TEST_CASE("trailing text and empty input are errors") {
  CHECK(parse_error("{} {}").line() == 1);
  CHECK(parse_error("").message().find("not valid JSON") == 0);
}

TEST_CASE("a field error read from a document gets the file and the field's line") {
  const std::string text = "{\n  \"entries\": [\n    {\"n\": 1},\n    {\n      \"n\": \"two\"\n    }\n  ]\n}\n";
  const io::JsonDocument doc = io::parse_json(text, "store.json");
  CHECK(doc.line_of("entries") == 2);
  CHECK(doc.line_of("entries[0]") == 3);
  CHECK(doc.line_of("entries[1]") == 4);
  CHECK(doc.line_of("entries[1].n") == 5);
  CHECK(doc.line_of("entries[1].missing") == 4); // the nearest enclosing field
  CHECK(doc.line_of("nowhere") == 1);
  try {
    doc.read([](const io::JsonFields& root) {
      for (const auto& e : root.at("entries").elements()) (void)e.at("n").integer<int>();
      return 0;
    });
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "store.json:5: field 'entries[1].n': expected an integer, got \"two\"");
  }
}

TEST_CASE("a number at the end of a line belongs to that line") {
  const io::JsonDocument doc = io::parse_json("[\n 1,\n 2\n]", "a.json");
  CHECK(doc.line_of("[1]") == 3);
}

TEST_CASE("reading files: missing, a directory, too large") {
  const auto dir = std::filesystem::temp_directory_path() / ("memtune-io-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  CHECK_THROWS_WITH_AS((void)io::read_json_file(dir / "absent.json"), doctest::Contains("absent.json: cannot open"),
                       InputError);
  CHECK_THROWS_WITH_AS((void)io::read_json_file(dir), doctest::Contains("it is a directory"), InputError);
  std::ofstream(dir / "big.json") << "[" << std::string(2000, ' ') << "]";
  io::JsonLimits small;
  small.max_bytes = 1000;
  CHECK_THROWS_WITH_AS((void)io::read_json_file(dir / "big.json", small), doctest::Contains("larger than 1000 bytes"),
                       InputError);
  CHECK(io::read_json_file(dir / "big.json").root().is_array());
  std::filesystem::remove_all(dir);
}
