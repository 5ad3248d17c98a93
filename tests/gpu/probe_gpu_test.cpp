// Every probe runs on the GPU at small sizes; outputs are verified against the
// CPU and the curves must have the shape every GPU since Fermi gives them.
#include "app.hpp"

#include <memtune/measure/device.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/probe/runner.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace memtune;
using namespace memtune::probe;
namespace fs = std::filesystem;

namespace {

ProbeOptions small_options() {
  ProbeOptions o;
  o.measure.min_samples = 5;
  o.measure.max_samples = 5;
  o.measure.warmup = 1;
  o.measure.max_seconds = 0.05;
  o.coalescing_n = 4 << 20;
  o.copy_bytes = 64 << 20;
  o.bank_reps = 256;
  o.bank_blocks = 0; // 32 per SM: enough warps for the shared pipe to be the bottleneck
  const Target t = local_target(0);
  o.dram_chase_bytes = std::max<std::size_t>(64 << 20, 2 * t.l2_bytes);
  o.l2_chase_bytes = std::max<std::size_t>(t.l2_bytes / 8, 1 << 20);
  o.chase_steps = 5000;
  o.l2_read_passes = 16;          // the default footprint (L2 / 4), read 16 times per launch
  o.launch_blocks = 1 << 18;      // grids of 2^12 .. 2^18 empty blocks
  o.cache_folder = fs::temp_directory_path() / "memtune-gpu-test-cache";
  return o;
}

const BankResult& bank(const ProbeReport& r, const std::string& name) {
  for (const auto& b : r.banks)
    if (b.variant.name == name) return b;
  FAIL("no bank result " << name);
  throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("probe: every probe runs, verifies, and has the expected shape") {
  std::ostringstream progress;
  const ProbeReport r = run_probes(small_options(), progress);
  MESSAGE(progress.str());
  std::ostringstream tables;
  print_tables(tables, r);
  MESSAGE(tables.str());
  CHECK(r.all_verified());

  REQUIRE(r.copy.has_value());
  CHECK(r.copy->float4_verified);
  CHECK(r.copy->memcpy.gbps > 0);
  CHECK(r.copy->float4_gbs > 0);
  // Neither copy can beat the theoretical peak by more than rounding of the clocks.
  CHECK(r.copy->memcpy.gbps < 1.1 * r.target.dram_bandwidth_gbs);

  REQUIRE(r.coalescing.has_value());
  REQUIRE(r.coalescing->offset.size() == 33);
  REQUIRE(r.coalescing->stride.size() == 32);
  for (const auto& p : r.coalescing->offset) CHECK(p.verified);
  for (const auto& p : r.coalescing->stride) CHECK(p.verified);
  CHECK(r.coalescing->offset[0].gbs > r.coalescing->stride[31].gbs);
  CHECK(r.coalescing->stride[0].gbs > 2 * r.coalescing->stride[31].gbs); // stride 32: a sector per element

  REQUIRE(r.banks.size() == 10);
  for (const auto& b : r.banks) {
    CAPTURE(b.variant.name);
    CHECK(b.verified);
    REQUIRE(b.timing.has_value());
    CHECK(b.timing->median_s > 0);
  }
  CHECK(bank(r, "f32-stride33").timing->median_s < bank(r, "f32-stride32").timing->median_s);
  CHECK(bank(r, "f32-stride1").timing->median_s < bank(r, "f32-stride32").timing->median_s);
  CHECK(bank(r, "f64-stride33").timing->median_s < bank(r, "f64-stride32").timing->median_s);

  REQUIRE(r.latency.size() == 2);
  const LatencyResult& dram = r.latency[0];
  const LatencyResult& l2 = r.latency[1];
  CHECK(dram.level == "dram");
  CHECK(dram.verified);
  CHECK(l2.verified);
  CHECK(dram.launches >= 1);
  CHECK(dram.ns_per_load > 50);
  CHECK(dram.ns_per_load < 5000);
  CHECK(l2.ns_per_load > 10);
  CHECK(l2.ns_per_load < dram.ns_per_load);

  REQUIRE(r.l2_read.has_value());
  CHECK(r.l2_read->verified);
  CHECK(r.l2_read->passes == 16);
  CHECK(r.l2_read->blocks == r.target.sm_count * (r.target.max_threads_per_sm / 256));
  REQUIRE(r.l2_read->timing.has_value());
  CHECK_FALSE(r.l2_read->timing->cold); // never flushed, even in cold mode
  CHECK(r.l2_read->gbs > 0);
  // Reading from L2 beats copying through DRAM on every GPU since Kepler.
  CHECK(r.l2_read->gbs > r.copy->memcpy.gbps);

  REQUIRE(r.launch.has_value());
  CHECK(r.launch->verified);
  REQUIRE(r.launch->points.size() == 4);
  CHECK(r.launch->points.back().blocks == 1 << 18);
  for (const auto& p : r.launch->points) {
    CAPTURE(p.blocks);
    REQUIRE(p.timing.has_value());
    CHECK(p.ns_per_block > 0);
  }
  CHECK(r.launch->block_launch_ns > 0);
  CHECK(r.launch->block_launch_ns < 1000); // a microsecond per empty block would be absurd
}

TEST_CASE("probe: --launches N runs exactly N untimed launches of one selected kernel") {
  ProbeOptions o = small_options();
  o.launches = 1;
  o.only = {"bank:f32-stride32", "offset:3", "latency:l2", "l2", "launch"};
  std::ostringstream progress;
  const ProbeReport r = run_probes(o, progress);
  CHECK_FALSE(r.copy.has_value());
  REQUIRE(r.banks.size() == 1);
  CHECK(r.banks[0].variant.name == "f32-stride32");
  CHECK(r.banks[0].launches == 1);
  CHECK_FALSE(r.banks[0].timing.has_value());
  CHECK(r.banks[0].verified);
  REQUIRE(r.coalescing.has_value());
  REQUIRE(r.coalescing->offset.size() == 1);
  CHECK(r.coalescing->offset[0].parameter == 3);
  CHECK(r.coalescing->offset[0].verified);
  CHECK(r.coalescing->stride.empty());
  REQUIRE(r.latency.size() == 1);
  CHECK(r.latency[0].launches == 1);
  CHECK(r.latency[0].verified);
  REQUIRE(r.l2_read.has_value());
  CHECK(r.l2_read->launches == 1);
  CHECK_FALSE(r.l2_read->timing.has_value());
  CHECK(r.l2_read->verified);
  REQUIRE(r.launch.has_value());
  CHECK(r.launch->points.size() == 4);
  CHECK_FALSE(r.launch->points[0].timing.has_value());
  CHECK(r.launch->block_launch_ns == 0);
  CHECK(r.launch->verified);
}

TEST_CASE("memtune probe: writes JSON, CSV, recordings and a target the catalogue loader reads") {
  const fs::path dir = fs::temp_directory_path() / "memtune-probe-gpu-test";
  fs::remove_all(dir);
  const std::string json = (dir / "probe.json").string(), csv = (dir / "csv").string(),
                    rec = (dir / "rec").string(), target = (dir / "local-probed.json").string();
  std::vector<const char*> args{"memtune", "probe", "-q", "--coalescing-n", "1M", "--copy-bytes", "64M",
                                "--bank-reps", "64", "--chase-steps", "2000", "--dram-chase-bytes", "256M",
                                "--l2-read-passes", "16", "--launch-blocks", "262144",
                                "--json", json.c_str(), "--csv", csv.c_str(), "--record", rec.c_str(),
                                "--save-target", target.c_str()};
  std::ostringstream out, err;
  const int code = cli::run(static_cast<int>(args.size()), args.data(), out, err);
  MESSAGE(out.str());
  CHECK_MESSAGE(code == cli::kExitOk, err.str());
  const Target t = model::load_target_file(target);
  CHECK(t.name == "local-probed");
  REQUIRE(t.measured.has_value());
  CHECK(t.measured->copy_gbs > 0);
  CHECK(t.measured->dram_latency_ns > 0);
  CHECK(t.memory_latency_ns == t.measured->dram_latency_ns);
  CHECK(t.measured->l2_read_gbs > 0);
  CHECK(t.measured->block_launch_ns > 0);
  CHECK(t.l2_bandwidth_gbs > 0); // measured where the catalogue has no figure
  for (const char* f : {"copy.csv", "offset.csv", "stride.csv", "bank.csv", "latency.csv", "l2_read.csv", "launch.csv"})
    CHECK(fs::exists(fs::path(csv) / f));
  for (const char* f : {"probe-offset.json", "probe-stride.json", "probe-bank.json"}) CHECK(fs::exists(fs::path(rec) / f));
  std::ifstream jf(json);
  const nlohmann::json j = nlohmann::json::parse(jf);
  CHECK(j.at("all_verified") == true);
  fs::remove_all(dir);
}
