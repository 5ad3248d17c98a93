#include <memtune/model/target_catalog.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

using namespace memtune;
using namespace memtune::model;
namespace fs = std::filesystem;

namespace {

const fs::path targets_dir = MEMTUNE_TEST_TARGETS_DIR;
const fs::path assets_dir = MEMTUNE_TEST_ASSETS_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Loads an asset and returns the error, failing the test if none is thrown.
TargetFileError load_error(const std::string& file) {
  try {
    (void)load_target_file(assets_dir / file);
  } catch (const TargetFileError& e) {
    return e;
  }
  FAIL("expected a TargetFileError for " << file);
  return TargetFileError("", "", "");
}

} // namespace

TEST_CASE("every catalogue file loads and is sane") {
  const TargetCatalog c = TargetCatalog::load_directory(targets_dir);
  const std::vector<std::string> expected{"a10",     "a100", "h100-pcie", "h100-sxm", "h200",    "k20", "k80",
                                          "l4",      "l40s", "p100",      "rtx3090",  "rtx4090", "t4",  "v100"};
  CHECK(c.names() == expected);
  for (const Target& t : c.targets()) {
    CAPTURE(t.name);
    CHECK(target_problems(t).empty());
    CHECK(t.origin == (targets_dir / (t.name + ".json")).string());
    // Ranges that catch unit slips (MB/s for GB/s, kHz for MHz, cycles for ns).
    CHECK(t.dram_bandwidth_gbs > 100);
    CHECK(t.dram_bandwidth_gbs < 6000);
    CHECK(t.sm_clock_mhz > 500);
    CHECK(t.sm_clock_mhz < 3000);
    CHECK(t.memory_latency_ns > 200);
    CHECK(t.memory_latency_ns < 1000);
    CHECK(t.l2_bytes >= 1536u * 1024u);
    CHECK(t.smem_per_sm <= t.l1_bytes + (t.cc_major == 6 ? 64u * 1024u : 0u)); // P100's shared memory is separate
    CHECK(t.has_bank_mode_choice() == (t.cc_major == 3));
  }
}

TEST_CASE("Kepler targets carry the figures the occupancy and bank models rely on") {
  const TargetCatalog c = TargetCatalog::load_directory(targets_dir);
  const Target& k20 = c.find("k20");
  CHECK(k20.display_name == "Tesla K20c");
  CHECK(k20.arch() == "sm_35");
  CHECK(k20.sm_count == 13);
  CHECK(k20.bank_widths_bytes == std::vector<int>{4, 8});
  CHECK(k20.smem_per_sm == 48u * 1024u);
  CHECK(k20.dram_bandwidth_gbs == doctest::Approx(208));
  CHECK(c.find("k80").regs_per_sm == 131072);
  CHECK(c.find("h100").smem_per_block_optin == 227u * 1024u);
}

TEST_CASE("find matches names, display names and aliases whatever the case and separators") {
  const TargetCatalog c = TargetCatalog::load_directory(targets_dir);
  CHECK(c.find("K20").name == "k20");
  CHECK(c.find("Tesla K20c").name == "k20");
  CHECK(c.find("h100").name == "h100-sxm"); // documented default: the SXM part
  CHECK(c.find("H100 PCIe").name == "h100-pcie");
  CHECK(c.find("RTX 4090").name == "rtx4090");
  CHECK(c.find("rtx_3090").name == "rtx3090");
  CHECK(c.find("A100-SXM4-40GB").name == "a100");
  CHECK(c.try_find("") == nullptr);
  CHECK(c.try_find("h1000") == nullptr);
}

TEST_CASE("an unknown target name lists the known ones") {
  const TargetCatalog c = TargetCatalog::load_directory(targets_dir);
  try {
    (void)c.find("gtx480");
    FAIL("expected UnknownTargetError");
  } catch (const UnknownTargetError& e) {
    const std::string m = e.what();
    CHECK(contains(m, "gtx480"));
    CHECK(contains(m, "k20"));
    CHECK(contains(m, "h100-sxm"));
    CHECK(e.known().size() == c.targets().size());
  }
}

TEST_CASE("malformed target files name the file and the field") {
  SUBCASE("missing field") {
    const auto e = load_error("missing_field.json");
    CHECK(e.field() == "sm_count");
    CHECK(contains(e.what(), "missing_field.json"));
    CHECK(contains(e.what(), "'sm_count': missing"));
  }
  SUBCASE("wrong type") {
    const auto e = load_error("wrong_type.json");
    CHECK(e.field() == "l2_bytes");
    CHECK(contains(e.what(), "wrong_type.json"));
    CHECK(contains(e.what(), "\"1.5 MB\""));
  }
  SUBCASE("nonsensical value") {
    const auto e = load_error("zero_sms.json");
    CHECK(e.field() == "sm_count");
    CHECK(contains(e.what(), "zero_sms.json"));
    CHECK(contains(e.what(), "must be > 0 (got 0)"));
  }
  SUBCASE("misspelt field") {
    const auto e = load_error("unknown_field.json");
    CHECK(e.field() == "sm_cout");
    CHECK(contains(e.what(), "unknown field"));
  }
  SUBCASE("figure without a source") {
    const auto e = load_error("missing_source.json");
    CHECK(e.field() == "sources.dram_bandwidth_gbs");
  }
  SUBCASE("8-byte banks on a GPU that has none") {
    const auto e = load_error("bad_bank_width.json");
    CHECK(e.field() == "bank_widths_bytes");
  }
  SUBCASE("JSON syntax error gives the line") {
    const auto e = load_error("syntax_error.json");
    CHECK(e.field().empty());
    CHECK(contains(e.what(), "syntax_error.json"));
    CHECK(contains(e.what(), "line 6"));
  }
  SUBCASE("unreadable file") {
    const auto e = load_error("no_such_file.json");
    CHECK(contains(e.what(), "cannot open"));
  }
}

TEST_CASE("a directory holding a bad file fails to load as a whole") {
  CHECK_THROWS_AS((void)TargetCatalog::load_directory(assets_dir), TargetFileError);
}

TEST_CASE("the targets directory comes from MEMTUNE_TARGETS_DIR, then the candidates") {
  const char* saved = std::getenv("MEMTUNE_TARGETS_DIR");
  const std::string restore = saved ? saved : "";
  ::unsetenv("MEMTUNE_TARGETS_DIR");
  CHECK(resolve_targets_dir({"/nonexistent/memtune", targets_dir}) == targets_dir);
  CHECK_THROWS_WITH_AS((void)resolve_targets_dir({"/nonexistent/memtune"}),
                       doctest::Contains("/nonexistent/memtune"), std::runtime_error);
  ::setenv("MEMTUNE_TARGETS_DIR", assets_dir.c_str(), 1);
  CHECK(resolve_targets_dir({targets_dir}) == assets_dir);
  ::setenv("MEMTUNE_TARGETS_DIR", "/nonexistent/env-dir", 1);
  CHECK_THROWS_WITH_AS((void)resolve_targets_dir({targets_dir}), doctest::Contains("MEMTUNE_TARGETS_DIR"),
                       std::runtime_error);
  if (saved) ::setenv("MEMTUNE_TARGETS_DIR", restore.c_str(), 1);
  else ::unsetenv("MEMTUNE_TARGETS_DIR");
}

// Added with the input checks of the "bad input" issue: values that used to be
// accepted (and wrapped, or predicted absurd times) are refused with the file,
// the line and the field.
TEST_CASE("out-of-range figures and unknown architectures name the file, the line and the field") {
  const auto k20 = [] {
    std::ifstream in(targets_dir / "k20.json");
    return nlohmann::json::parse(in);
  }();
  const fs::path dir = fs::temp_directory_path() / ("memtune-targets-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  auto error_with = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json j = k20;
    j[key] = value;
    const fs::path file = dir / "k20.json";
    std::ofstream(file) << j.dump(2);
    try {
      (void)load_target_file(file);
    } catch (const TargetFileError& e) {
      CHECK(e.file() == file.string());
      CHECK(e.line() > 1); // the field's line in the indented file
      return e;
    }
    FAIL("no error for " << key);
    return TargetFileError("", "", "");
  };
  const auto overflow = error_with("sm_count", 4294967428LL); // became 132
  CHECK(overflow.field() == "sm_count");
  CHECK(contains(overflow.what(), "4294967428"));
  CHECK(error_with("dram_bandwidth_gbs", 1e-300).field() == "dram_bandwidth_gbs");
  CHECK(error_with("sm_count", 100000).field() == "sm_count");
  CHECK(error_with("memory_bytes", -1).field() == "memory_bytes");
  nlohmann::json future = k20;
  future["cc_major"] = 12;
  future["cc_minor"] = 9;
  future["bank_widths_bytes"] = {4};
  const auto arch = [&] {
    std::ofstream(dir / "k20.json") << future.dump(2);
    try {
      (void)load_target_file(dir / "k20.json");
    } catch (const TargetFileError& e) {
      return std::string(e.what()) + " [" + e.field() + "]";
    }
    return std::string("no error");
  }();
  CHECK(contains(arch, "12.9 is unknown to this toolkit's cuda_occupancy.h"));
  CHECK(contains(arch, "[cc_major]"));
  fs::remove_all(dir);
}

TEST_CASE("every catalogue target has its memory size with a source") {
  const TargetCatalog catalog = TargetCatalog::load_directory(targets_dir);
  for (const Target& t : catalog.targets()) {
    CHECK_MESSAGE(t.memory_bytes >= (std::size_t{4} << 30), t.name);
    CHECK(t.sources.count("memory_bytes") == 1);
  }
  CHECK(catalog.find("k20").memory_bytes == std::size_t{5} << 30);
}
