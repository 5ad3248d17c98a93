// The probe's printers (JSON, CSV, recordings, tables), its calibrated target
// file (read back by the model's loader) and the CLI without a GPU.
#include "../../cli/src/app.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/output/printer.hpp>
#include <memtune/probe/calibrate.hpp>
#include <memtune/probe/report.hpp>
#include <memtune/search/space.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace memtune;
using namespace memtune::probe;
namespace fs = std::filesystem;

namespace {

Timing timing(double s) {
  Timing t;
  t.median_s = t.min_s = t.max_s = s;
  t.samples = 10;
  return t;
}

// The local target as the driver would describe an H100 SXM: no L1 size, no
// carve-outs, no latency, one catch-all source.
Target driver_like_h100() {
  const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  Target t = catalog.find("h100-sxm");
  t.name = "local";
  t.display_name = "NVIDIA H100 80GB HBM3";
  t.aliases.clear();
  t.l1_bytes = 0;
  t.smem_carveouts_kb.clear();
  t.memory_latency_ns = 0;
  t.l2_bandwidth_gbs = 0;
  t.sources = {{"*", "CUDA driver (cuDeviceGetAttribute)"}};
  t.origin = "driver";
  return t;
}

ProbeReport sample_report() {
  ProbeReport r;
  r.target = driver_like_h100();
  r.device = fingerprint(r.target);
  r.date = "2026-11-22";
  CopyProbe c;
  c.bytes = 256 << 20;
  c.memcpy.gbps = 2800;
  c.memcpy.bytes = c.bytes;
  c.memcpy.timing = timing(1.9e-4);
  c.float4_timing = timing(2.0e-4);
  c.float4_gbs = 2700;
  c.float4_verified = true;
  r.copy = c;
  CoalescingProbe co;
  co.n = 1 << 20;
  for (int s = 0; s <= 32; ++s) co.offset.push_back({s, timing(1e-5 * (1 + s % 4)), 800.0, true});
  for (int s = 1; s <= 32; ++s) co.stride.push_back({s, timing(1e-5 * s), 800.0 / s, true});
  r.coalescing = co;
  for (const auto& v : bank_variants()) {
    BankResult b;
    b.variant = v;
    b.reps = 64;
    b.blocks = 4;
    b.launches = 12;
    b.per_block = simulate_bank_variant(v, b.reps);
    b.timing = timing(1e-6 * v.stride);
    b.verified = true;
    r.banks.push_back(b);
  }
  r.latency.push_back({"dram", 512 << 20, 128, 100000, 12, 612.5, true});
  r.latency.push_back({"l2", 12 << 20, 128, 100000, 12, 260.0, true});
  L2BandwidthResult l2;
  l2.bytes = 12800 << 10;
  l2.passes = 82;
  l2.blocks = 132 * 8;
  l2.threads = 256;
  l2.launches = 13;
  l2.timing = timing(2.0e-4);
  l2.gbs = 5500;
  l2.verified = true;
  r.l2_read = l2;
  LaunchRateProbe launch;
  for (std::int64_t b : {std::int64_t{1} << 16, std::int64_t{1} << 18, std::int64_t{1} << 20, std::int64_t{1} << 22})
    launch.points.push_back({b, timing(2e-6 + 1e-9 * static_cast<double>(b)), 1.0 + 2000.0 / static_cast<double>(b)});
  launch.block_launch_ns = fitted_block_launch_ns(launch.points);
  launch.verified = true;
  r.launch = launch;
  return r;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("probe spaces: offset 0..32, stride 1..32, bank width x stride x padded") {
  CHECK(offset_space().enumerate().size() == 33);
  CHECK(stride_space().enumerate().size() == 32);
  const search::Space b = bank_space();
  CHECK(b.cross_product_size() == 20);
  CHECK(b.enumerate().size() == 10); // padded == (stride == 33)
  for (const auto& v : bank_variants()) CHECK(b.is_valid(bank_config(v)));
  // Round-trips as the replay benchmark reads it.
  CHECK(search::Space::from_json(b.to_json()).enumerate() == b.enumerate());
}

TEST_CASE("probe JSON carries schema, tool, device and every probe") {
  const ProbeReport r = sample_report();
  CHECK(r.all_verified());
  const nlohmann::json j = to_json(r);
  CHECK(j.at("schema_version") == 1);
  CHECK(j.at("tool").get<std::string>().rfind("memtune ", 0) == 0);
  CHECK(j.at("device").at("name") == "NVIDIA H100 80GB HBM3");
  CHECK(j.at("copy").at("memcpy_gbs") == 2800);
  CHECK(j.at("coalescing").at("offset").size() == 33);
  CHECK(j.at("coalescing").at("stride").size() == 32);
  REQUIRE(j.at("bank").size() == 10);
  const auto& s32 = j.at("bank")[3];
  CHECK(s32.at("variant") == "f32-stride32");
  CHECK(s32.at("kernel") == "probe_bank_f32_stride32");
  CHECK(s32.at("simulated_per_launch").at("load_conflicts") == 31 * 8 * 64 * 4);
  CHECK(s32.at("simulated_per_launch").at("store_conflicts") == 31 * 8 * 4);
  CHECK(j.at("latency")[0].at("ns_per_load") == 612.5);
  CHECK(j.at("l2_read").at("gbs") == 5500);
  CHECK(j.at("l2_read").at("passes") == 82);
  CHECK(j.at("l2_read").at("bytes_read_per_launch") == std::size_t{82} * (12800 << 10));
  CHECK(j.at("l2_read").at("verified") == true);
  CHECK(j.at("l2_read").at("timing").at("median_s") == 2.0e-4);
  REQUIRE(j.at("launch").at("points").size() == 4);
  CHECK(j.at("launch").at("points")[3].at("blocks") == 1 << 22);
  CHECK(j.at("launch").at("threads_per_block") == 32);
  CHECK(j.at("launch").at("block_launch_ns").get<double>() == doctest::Approx(1.0));
  CHECK(j.at("launch").at("verified") == true);

  ProbeReport bad = r;
  bad.banks[0].verified = false;
  CHECK_FALSE(bad.all_verified());
  CHECK(to_json(bad).at("all_verified") == false);
  ProbeReport bad_l2 = r;
  bad_l2.l2_read->verified = false;
  CHECK_FALSE(bad_l2.all_verified());
  ProbeReport bad_launch = r;
  bad_launch.launch->verified = false;
  CHECK_FALSE(bad_launch.all_verified());
}

TEST_CASE("block launch slope: the two largest timed grids") {
  auto point = [](std::int64_t blocks, std::optional<double> s) {
    LaunchPoint p;
    p.blocks = blocks;
    if (s) p.timing = timing(*s);
    return p;
  };
  // 3 us fixed + 0.5 ns per block; the small grids' noise does not enter.
  CHECK(fitted_block_launch_ns({point(1000, 9e-6), point(4000, 5e-6), point(16000, 11e-6), point(64000, 35e-6)}) ==
        doctest::Approx(0.5));
  // Order does not matter; untimed points do not count.
  CHECK(fitted_block_launch_ns({point(64000, 35e-6), point(1 << 20, std::nullopt), point(16000, 11e-6)}) ==
        doctest::Approx(0.5));
  CHECK(fitted_block_launch_ns({point(64000, 35e-6)}) == 0.0);
  CHECK(fitted_block_launch_ns({point(16000, 40e-6), point(64000, 35e-6)}) == 0.0); // not a rate
  CHECK(fitted_block_launch_ns({}) == 0.0);
}

TEST_CASE("probe recordings: the CLI's --record format, replayable") {
  const auto recs = recordings(sample_report());
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].first == "probe-offset.json");
  CHECK(recs[1].first == "probe-stride.json");
  CHECK(recs[2].first == "probe-bank.json");
  for (const auto& [name, doc] : recs) {
    CAPTURE(name);
    for (const char* key : {"schema_version", "tool", "template", "problem", "device", "mode", "space", "trials"})
      CHECK(doc.contains(key));
    const search::Space space = search::Space::from_json(doc.at("space"));
    CHECK(doc.at("trials").size() == space.enumerate().size());
    for (const auto& t : doc.at("trials")) {
      CHECK(space.is_valid(space.config_from_json(t.at("config"))));
      CHECK(t.at("status") == "ok");
      CHECK(t.at("time_s").get<double>() > 0);
    }
  }
  CHECK(recs[2].second.at("problem").at("reps") == 64);

  // Untimed points (--launches) are not trials.
  ProbeReport untimed = sample_report();
  for (auto& p : untimed.coalescing->offset) p.timing.reset();
  CHECK(recordings(untimed)[0].second.at("trials").empty());
}

TEST_CASE("probe CSV: one file per probe with a header and a row per point") {
  const ProbeReport r = sample_report();
  const fs::path dir = fs::temp_directory_path() / "memtune-probe-csv-test";
  fs::remove_all(dir);
  write_csv(r, dir);
  for (const auto& [name, rows] : std::vector<std::pair<std::string, int>>{
           {"copy.csv", 2}, {"offset.csv", 33}, {"stride.csv", 32}, {"bank.csv", 10}, {"latency.csv", 2},
           {"l2_read.csv", 1}, {"launch.csv", 4}}) {
    CAPTURE(name);
    const std::string text = read(dir / name);
    CHECK(std::count(text.begin(), text.end(), '\n') == rows + 1);
  }
  CHECK(read(dir / "bank.csv").find("f32-stride32,probe_bank_f32_stride32,4,32,64,4,") != std::string::npos);
  CHECK(read(dir / "l2_read.csv") ==
        "bytes,passes,blocks,threads_per_block,median_s,gbs,verified\n13107200,82,1056,256,0.0002,5500,1\n");
  CHECK(read(dir / "launch.csv").rfind("blocks,threads_per_block,median_s,ns_per_block,block_launch_ns,verified\n", 0) == 0);
  CHECK(read(dir / "launch.csv").find("\n4194304,32,") != std::string::npos);
  fs::remove_all(dir);

  std::ostringstream out;
  print_tables(out, r);
  for (const char* s : {"copy", "offset", "stride", "shared-memory banks", "f64-stride33", "latency", "dram",
                        "L2 read bandwidth", "5500", "block launch", "4194304", "block_launch_ns 1.000"})
    CHECK(out.str().find(s) != std::string::npos);
}

TEST_CASE("calibrated target: completed from the catalogue, measured figures, loads back") {
  ProbeReport r = sample_report();
  r.l2_fetch_bytes = 64;
  const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  // As a catalogue entry without an L2 figure (the catalogue's h100-sxm has
  // one, measured by this probe; most entries have none).
  Target base = catalog.find("h100-sxm");
  base.l2_bandwidth_gbs = 0;
  base.sources["l2_bandwidth_gbs"] = "0 = unknown: NVIDIA publishes no L2 bandwidth figure for this GPU";
  const Target t = calibrated_target(r, &base, "h100-probed");
  CHECK(model::target_problems(t).empty());
  const fs::path file = fs::temp_directory_path() / "h100-probed.json";
  {
    std::ofstream f(file);
    f << target_file_json(t).dump(2);
  }
  const Target back = model::load_target_file(file);
  CHECK(back.name == "h100-probed");
  CHECK(back.dram_bandwidth_gbs == r.target.dram_bandwidth_gbs); // the driver's theoretical peak
  CHECK(back.memory_latency_ns == 612.5);
  CHECK(back.l1_bytes == base.l1_bytes);
  CHECK(back.smem_carveouts_kb == base.smem_carveouts_kb);
  REQUIRE(back.measured.has_value());
  CHECK(back.measured->copy_gbs == 2800);
  CHECK(back.measured->float4_copy_gbs == 2700);
  CHECK(back.measured->dram_latency_ns == 612.5);
  CHECK(back.measured->l2_latency_ns == 260.0);
  CHECK(back.sources.at("memory_latency_ns").find("measured by memtune probe on 2026-11-22") != std::string::npos);
  CHECK(back.sources.at("measured").find("measured by memtune probe on 2026-11-22") != std::string::npos);
  CHECK(back.sources.at("measured").find("ld.global.cg") != std::string::npos);
  CHECK(back.sources.at("measured").find("1048576 and 4194304 blocks") != std::string::npos);
  CHECK(back.measured->l2_read_gbs == 5500);
  CHECK(back.measured->block_launch_ns == doctest::Approx(1.0));
  CHECK(back.measured->l2_fetch_bytes == 64);
  CHECK(back.sources.at("measured").find("CU_LIMIT_MAX_L2_FETCH_GRANULARITY") != std::string::npos);
  // The entry has no L2 bandwidth (0 = unknown): the measured one takes its place.
  CHECK(back.l2_bandwidth_gbs == 5500);
  CHECK(back.sources.at("l2_bandwidth_gbs") ==
        "measured by memtune probe on 2026-11-22: all SMs reading an L2-resident buffer with ld.global.cg");
  fs::remove(file);

  // Without a catalogue entry: stated assumptions, still a valid file.
  const Target alone = calibrated_target(r, nullptr, target_name_from(r.device.name));
  CHECK(alone.name == "nvidia-h100-80gb-hbm3");
  CHECK(model::target_problems(alone).empty());
  CHECK_NOTHROW((void)model::parse_target(target_file_json(alone), "alone"));

  // Without a latency measurement the catalogue's figure stays.
  ProbeReport no_latency = r;
  no_latency.latency.clear();
  CHECK(calibrated_target(no_latency, &base, "x").memory_latency_ns == base.memory_latency_ns);

  // Unverified (or absent) L2 and launch probes measure nothing: 0, and the L2 bound stays unknown.
  ProbeReport unverified = r;
  unverified.l2_read->verified = false;
  unverified.launch->verified = false;
  const Target u = calibrated_target(unverified, &base, "u");
  CHECK(u.measured->l2_read_gbs == 0);
  CHECK(u.measured->block_launch_ns == 0);
  CHECK(u.l2_bandwidth_gbs == 0);
  CHECK(u.sources.at("l2_bandwidth_gbs").find("0 = unknown") != std::string::npos);
  ProbeReport absent = r;
  absent.l2_read.reset();
  absent.launch.reset();
  CHECK(calibrated_target(absent, nullptr, "a").l2_bandwidth_gbs == 0);
  CHECK(calibrated_target(absent, nullptr, "a").measured->block_launch_ns == 0);

  // A base with a public L2 figure keeps it; the measurement sits beside it in "measured".
  Target with_l2 = base;
  with_l2.l2_bandwidth_gbs = 7000;
  with_l2.sources["l2_bandwidth_gbs"] = "a public figure";
  const Target kept = calibrated_target(r, &with_l2, "k");
  CHECK(kept.l2_bandwidth_gbs == 7000);
  CHECK(kept.sources.at("l2_bandwidth_gbs").rfind("a public figure", 0) == 0);
  CHECK(kept.measured->l2_read_gbs == 5500);
}

TEST_CASE("target loader: \"measured\" is optional and checked") {
  const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  nlohmann::json j = target_file_json(catalog.find("h100-sxm"));
  CHECK_FALSE(j.contains("measured"));
  CHECK_FALSE(model::parse_target(j, "plain").measured.has_value());
  j["measured"] = {{"copy_gbs", 1.0}};
  j["sources"]["measured"] = "test";
  CHECK(model::parse_target(j, "m").measured->copy_gbs == 1.0);
  j["measured"] = {{"copy_gb", 1.0}};
  CHECK_THROWS_AS((void)model::parse_target(j, "m"), model::TargetFileError);
  j["measured"] = {{"copy_gbs", "fast"}};
  CHECK_THROWS_AS((void)model::parse_target(j, "m"), model::TargetFileError);
}

TEST_CASE("memtune probe: usage errors exit 2; without a GPU it says so and exits 3") {
  auto run_cli = [](std::vector<const char*> args) {
    args.insert(args.begin(), "memtune");
    std::ostringstream out, err;
    const int code = cli::run(static_cast<int>(args.size()), args.data(), out, err);
    return std::make_pair(code, err.str());
  };
  auto [code, err] = run_cli({"probe", "--only", "bank:f32-stride3"});
  CHECK(code == cli::kExitUsage);
  CHECK(err.find("f32-stride32") != std::string::npos); // lists the variants
  CHECK(run_cli({"probe", "--launches", "-1"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--bank-reps", "0"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--chase-stride", "64"}).first == cli::kExitUsage);
  // An unsigned option: "-128" wrapped to 2^64 - 128 and passed its >= 128 check.
  auto [stride_code, stride_err] = run_cli({"probe", "--chase-stride", "-128"});
  CHECK(stride_code == cli::kExitUsage);
  CHECK(stride_err.find("--chase-stride") != std::string::npos);
  CHECK(run_cli({"probe", "--seed", "-1"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--target-name", "H100 probed"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--launch-blocks", "32"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--l2-read-passes", "-1"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--l2-read-bytes", "zero"}).first == cli::kExitUsage);
  CHECK(run_cli({"probe", "--only", "launch:1"}).first == cli::kExitUsage);
  {
    std::vector<const char*> args{"memtune", "probe", "--list"};
    std::ostringstream out, err2;
    CHECK(cli::run(static_cast<int>(args.size()), args.data(), out, err2) == cli::kExitOk);
    CHECK(out.str().find("bank:f32-stride32   probe_bank_f32_stride32") != std::string::npos);
    CHECK(out.str().find("l2                  probe_l2_read") != std::string::npos);
    CHECK(out.str().find("launch              probe_empty_block") != std::string::npos);
  }
  if (cuda::driver_available()) {
    MESSAGE("a GPU is present: the no-GPU path is not exercised here");
    return;
  }
  std::tie(code, err) = run_cli({"probe", "--only", "bank:f32-stride32", "--launches", "1"});
  CHECK(code == cli::kExitNoDevice);
  CHECK(err.find("needs a GPU") != std::string::npos);
}

TEST_CASE("probe report through the printers: its JSON is to_json, CSV and markdown carry every probe table") {
  const ProbeReport r = sample_report();
  const output::Document d = to_document(r);
  std::ostringstream json, csv, md;
  output::print(json, d, output::Format::json);
  output::print(csv, d, output::Format::csv);
  output::print(md, d, output::Format::markdown);
  nlohmann::json expected = to_json(r);
  CHECK(nlohmann::json::parse(json.str()) == expected);
  for (const char* table : {"copy", "offset", "stride", "bank", "latency", "l2_read", "launch"})
    CHECK_MESSAGE(csv.str().find(std::string("# table: ") + table + "\n") != std::string::npos, table);
  CHECK(csv.str().rfind("# schema_version: 1\n", 0) == 0);
  CHECK(md.str().find("**shared-memory banks (256 threads/block") != std::string::npos);
  CHECK(md.str().find("| variant | kernel | time us |") != std::string::npos);
}
