// The printers against golden files (tests/assets/output/*.golden) whose
// "{num}" stands for any number, so timings may change without the layout.
#include "../support/synthetic_result.hpp"

#include <memtune/output/printer.hpp>
#include <memtune/output/tuning_document.hpp>
#include <memtune/io/version.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

using namespace memtune;

namespace {

std::string golden_path(const std::string& name) { return std::string(MEMTUNE_TEST_ASSETS_DIR) + "/output/" + name; }

// Each golden line is a regex after escaping, with {num} as a number.
// MEMTUNE_UPDATE_GOLDEN=1 rewrites the files from the output, every number
// with a fraction or an exponent (the measured ones) as {num}: review the diff.
void check_against_golden(const std::string& text, const std::string& name) {
  if (std::getenv("MEMTUNE_UPDATE_GOLDEN")) {
    std::ofstream(golden_path(name)) << std::regex_replace(
        text, std::regex("-?[0-9]+\\.[0-9]+(e[-+]?[0-9]+)?|-?[0-9]+e[-+]?[0-9]+"), "{num}");
  }
  std::ifstream in(golden_path(name));
  REQUIRE_MESSAGE(in, "missing golden file " << golden_path(name));
  std::istringstream got(text);
  std::string want_line, got_line;
  int line = 0;
  while (std::getline(in, want_line)) {
    ++line;
    REQUIRE_MESSAGE(std::getline(got, got_line), name << ":" << line << ": output ended, expected: " << want_line);
    std::string pattern;
    for (std::size_t i = 0; i < want_line.size(); ++i) {
      if (want_line.compare(i, 5, "{num}") == 0) {
        pattern += "-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?";
        i += 4;
      } else if (std::string("\\^$.|?*+()[]{}").find(want_line[i]) != std::string::npos) {
        pattern += std::string("\\") + want_line[i];
      } else {
        pattern += want_line[i];
      }
    }
    CHECK_MESSAGE(std::regex_match(got_line, std::regex(pattern)),
                  name << ":" << line << ":\n  expected: " << want_line << "\n  got:      " << got_line);
  }
  CHECK_MESSAGE(!std::getline(got, got_line), name << ": more output than expected: " << got_line);
}

std::string printed(output::Format f) {
  std::ostringstream out;
  output::print(out, to_document(testing::synthetic_result(), 10, "a template's note"), f);
  return out.str();
}

} // namespace

TEST_CASE("printers: a tuning run as a table, markdown, CSV and JSON match their golden files") {
  check_against_golden(printed(output::Format::table), "tuning.table.golden");
  check_against_golden(printed(output::Format::markdown), "tuning.markdown.golden");
  check_against_golden(printed(output::Format::csv), "tuning.csv.golden");
  check_against_golden(printed(output::Format::json), "tuning.json.golden");
}

TEST_CASE("printers: JSON and CSV carry the schema and tool versions; JSON keeps every field of the run") {
  const auto j = nlohmann::json::parse(printed(output::Format::json));
  CHECK(j.at("schema_version") == kSchemaVersion);
  CHECK(j.at("tool") == std::string("memtune ") + kVersion);
  for (const char* key : {"template", "problem", "device", "mode", "space", "ranked", "best", "rationale", "failures",
                          "trials", "copy_ceiling", "template_note"})
    CHECK_MESSAGE(j.contains(key), key);
  CHECK(j.at("ranked").size() == 2);
  CHECK_FALSE(j.at("ranked")[0].contains("config_text")); // text helpers stay out of JSON
  CHECK(j.at("ranked")[0].at("config") == nlohmann::json{{"block_size", 256}, {"layout", "soa"}});
  CHECK(j.at("trials").size() == 3);
  const std::string csv = printed(output::Format::csv);
  CHECK(csv.rfind("# schema_version: 1\n# tool: memtune ", 0) == 0);
}

TEST_CASE("printers: cells, CSV quoting and markdown pipes") {
  output::Column us{.key = "t", .header = "us", .format = "%.1f", .scale = 1e6};
  CHECK(output::cell_text(us, 2.5e-6) == "2.5");
  CHECK(output::cell_text({}, nlohmann::json{{"a", 1}, {"b", "x"}}) == "a=1 b=x");
  CHECK(output::cell_text({}, nullptr).empty());
  output::Document d;
  d.title = "t";
  output::Table& t = d.add_table("rows");
  t.columns = {{.key = "name", .header = "name"}, {.key = "v", .header = "v"}};
  t.rows.push_back({{"name", "a,\"b\"|c"}, {"v", 1}});
  d.fact("added after the table: the table must survive");
  std::ostringstream csv, md;
  output::print(csv, d, output::Format::csv);
  output::print(md, d, output::Format::markdown);
  CHECK(csv.str().find("\"a,\"\"b\"\"|c\",1\n") != std::string::npos);
  CHECK(md.str().find("| a,\"b\"\\|c | 1 |") != std::string::npos);
  CHECK(output::parse_format("md") == output::Format::markdown);
  CHECK_FALSE(output::parse_format("xml"));
}

TEST_CASE("printers: a modeled table says its ties, shows the next bound, and writes null where there is no value") {
  TuningResult r = testing::synthetic_result();
  r.measured = false;
  r.ceiling.reset();
  r.same_size_copy.reset();
  for (auto& e : r.evaluations) {
    if (!e.timing) continue;
    e.timing->median_s = 4.0e-6; // two configurations at one predicted time
    e.timing->samples = 0;       // predicted, not sampled
    e.fraction_of_ceiling = 0.0;
  }
  const output::Document d = to_document(r, 10, "");
  std::ostringstream text;
  output::print(text, d, output::Format::table);
  CHECK(text.str().find("next us") != std::string::npos);
  CHECK(text.str().find("2 configurations (ranks 1-2) tie at 4.00 us") != std::string::npos);
  CHECK(text.str().find("the model does not separate them (they differ in block_size, layout)") != std::string::npos);
  std::ostringstream json;
  output::print(json, d, output::Format::json);
  const auto j = nlohmann::json::parse(json.str());
  const auto& best = j.at("best");
  CHECK(best.at("spread").is_null());
  CHECK(best.at("fraction_of_ceiling").is_null());
  CHECK(best.at("max_abs_error").is_null());
  CHECK(best.at("time_s").is_number());
}

TEST_CASE("printers: a problem the constraints leave no configuration for says which rules rejected them") {
  TuningResult r = testing::synthetic_result();
  r.evaluations.clear();
  r.journal.clear();
  r.space.require((search::Expr(7) % search::axis("block_size") == 0).because("whole blocks"));
  r.configs_pruned = r.space.cross_product_size();
  std::ostringstream text;
  output::print(text, to_document(r, 10, ""), output::Format::table);
  CAPTURE(text.str());
  CHECK(text.str().find("no configuration is valid for this problem: of 4 configurations (each counted under the "
                        "first rule it fails): 4 fail whole blocks") != std::string::npos);
  CHECK(text.str().find("nothing ran: the constraints leave no configuration for this problem") != std::string::npos);
  CHECK(text.str().find("no configuration succeeded") == std::string::npos);
}
