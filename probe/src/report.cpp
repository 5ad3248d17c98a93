#include <memtune/io/atomic_file.hpp>
#include <memtune/output/printer.hpp>
#include <memtune/probe/report.hpp>
#include <memtune/io/version.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace memtune::probe {

using nlohmann::json;

double BankResult::ns_per_warp_load() const {
  if (!timing || blocks <= 0 || reps <= 0) return 0.0;
  return timing->median_s * 1e9 / (static_cast<double>(blocks) * bank_block_warps * static_cast<double>(reps));
}

double fitted_block_launch_ns(const std::vector<LaunchPoint>& points) {
  std::vector<const LaunchPoint*> timed;
  for (const auto& p : points)
    if (p.timing) timed.push_back(&p);
  std::sort(timed.begin(), timed.end(), [](const LaunchPoint* a, const LaunchPoint* b) { return a->blocks < b->blocks; });
  if (timed.size() < 2) return 0.0;
  const LaunchPoint& a = *timed[timed.size() - 2];
  const LaunchPoint& b = *timed.back();
  if (b.blocks <= a.blocks) return 0.0;
  const double ns = (b.timing->median_s - a.timing->median_s) * 1e9 / static_cast<double>(b.blocks - a.blocks);
  return ns > 0 ? ns : 0.0;
}

bool ProbeReport::all_verified() const {
  if (copy && !copy->float4_verified) return false;
  if (coalescing) {
    for (const auto& p : coalescing->offset)
      if (!p.verified) return false;
    for (const auto& p : coalescing->stride)
      if (!p.verified) return false;
  }
  for (const auto& b : banks)
    if (!b.verified) return false;
  for (const auto& l : latency)
    if (!l.verified) return false;
  if (l2_read && !l2_read->verified) return false;
  if (launch && !launch->verified) return false;
  return true;
}

search::Space offset_space() {
  std::vector<std::int64_t> v;
  for (int s = 0; s <= 32; ++s) v.push_back(s);
  search::Space space;
  space.add(search::Axis::ordinal("offset", v, "elements by which a[i + offset] is misaligned (4-byte floats)"));
  return space;
}

search::Space stride_space() {
  std::vector<std::int64_t> v;
  for (int s = 1; s <= 32; ++s) v.push_back(s);
  search::Space space;
  space.add(search::Axis::ordinal("stride", v, "elements between the elements of neighbouring threads, a[i * stride]"));
  return space;
}

search::Space bank_space() {
  using search::axis;
  search::Space space;
  space.add(search::Axis::ordinal("width", {4, 8}, "bytes per shared-memory element (float, double)"));
  space.add(search::Axis::ordinal("stride", {1, 2, 16, 32, 33}, "elements between the lanes of a warp"));
  space.add(search::Axis::ordinal("padded", {0, 1}, "1: the column of a 32 x 33 (padded) tile, i.e. stride 33"));
  space.require(search::Constraint::implies(axis("stride") == 33, axis("padded") == 1)
                    .because("stride 33 is the padded 32 x 32 tile"));
  space.require(search::Constraint::implies(axis("padded") == 1, axis("stride") == 33)
                    .because("padding is only probed as stride 33"));
  return space;
}

search::Config bank_config(const BankVariant& v) {
  return {{"width", v.width_bytes}, {"stride", v.stride}, {"padded", v.stride == 33 ? 1 : 0}};
}

namespace {

json timing_json(const Timing& t) {
  return {{"median_s", t.median_s}, {"min_s", t.min_s}, {"max_s", t.max_s},
          {"spread", t.spread},     {"samples", t.samples}, {"cold", t.cold}};
}

json curve_json(const std::vector<CurvePoint>& points, const char* key) {
  json a = json::array();
  for (const auto& p : points) {
    json j{{key, p.parameter}, {"gbs", p.gbs}, {"verified", p.verified}};
    if (p.timing) j["timing"] = timing_json(*p.timing);
    a.push_back(std::move(j));
  }
  return a;
}

json recording(const std::string& name, const json& problem, const DeviceFingerprint& device,
               const search::Space& space, const json& trials) {
  return {{"schema_version", kSchemaVersion},
          {"tool", std::string("memtune ") + kVersion},
          {"template", name},
          {"problem", problem},
          {"device", device.to_json()},
          {"mode", "measured"},
          {"space", space.to_json()},
          {"trials", trials}};
}

// Only timed points make trials: an untimed run (--launches) has nothing to replay.
json curve_trials(const search::Space& space, const std::string& axis, const std::vector<CurvePoint>& points) {
  json trials = json::array();
  for (const auto& p : points) {
    if (!p.timing) continue;
    search::Config c;
    c.set(axis, p.parameter);
    json t{{"config", space.config_to_json(c)}, {"status", p.verified ? "ok" : "wrong_result"}};
    if (p.verified) t["time_s"] = p.timing->median_s;
    else t["reason"] = "output differs from the CPU reference";
    trials.push_back(std::move(t));
  }
  return trials;
}

std::string fmt(double v, int precision) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}


} // namespace

json to_json(const ProbeReport& r) {
  json j{{"schema_version", kSchemaVersion},
         {"tool", std::string("memtune ") + kVersion},
         {"command", "probe"},
         {"device", r.device.to_json()},
         {"date", r.date},
         {"cold", r.cold},
         {"driver_dram_bandwidth_gbs", r.target.dram_bandwidth_gbs},
         {"l2_bytes", r.target.l2_bytes},
         {"all_verified", r.all_verified()}};
  if (r.copy) {
    j["copy"] = {{"bytes", r.copy->bytes},
                 {"memcpy_gbs", r.copy->memcpy.gbps},
                 {"memcpy_timing", timing_json(r.copy->memcpy.timing)},
                 {"float4_gbs", r.copy->float4_gbs},
                 {"float4_timing", timing_json(r.copy->float4_timing)},
                 {"float4_verified", r.copy->float4_verified}};
  }
  if (r.coalescing) {
    j["coalescing"] = {{"n", r.coalescing->n},
                       {"bytes_requested_per_launch", 2 * r.coalescing->n * 4},
                       {"offset", curve_json(r.coalescing->offset, "offset")},
                       {"stride", curve_json(r.coalescing->stride, "stride")}};
  }
  if (!r.banks.empty()) {
    json a = json::array();
    for (const auto& b : r.banks) {
      json e{{"variant", b.variant.name},
             {"kernel", b.variant.kernel},
             {"width_bytes", b.variant.width_bytes},
             {"stride", b.variant.stride},
             {"access", b.variant.what},
             {"reps", b.reps},
             {"blocks", b.blocks},
             {"threads_per_block", bank_block_threads},
             {"launches", b.launches},
             {"verified", b.verified},
             {"simulated_per_block",
              {{"load_wavefronts", b.per_block.load_wavefronts},
               {"load_conflicts", b.per_block.load_conflicts},
               {"store_wavefronts", b.per_block.store_wavefronts},
               {"store_conflicts", b.per_block.store_conflicts},
               {"load_ways", b.per_block.load_ways}}},
             {"simulated_per_launch",
              {{"load_conflicts", b.simulated_load_conflicts()}, {"store_conflicts", b.simulated_store_conflicts()}}}};
      if (b.timing) {
        e["timing"] = timing_json(*b.timing);
        e["ns_per_warp_load"] = b.ns_per_warp_load();
      }
      a.push_back(std::move(e));
    }
    j["bank"] = a;
  }
  if (r.l2_fetch_bytes > 0) j["l2_fetch_bytes"] = r.l2_fetch_bytes;
  if (!r.latency.empty()) {
    json a = json::array();
    for (const auto& l : r.latency)
      a.push_back({{"level", l.level},
                   {"bytes", l.bytes},
                   {"stride_bytes", l.stride_bytes},
                   {"steps", l.steps},
                   {"launches", l.launches},
                   {"ns_per_load", l.ns_per_load},
                   {"verified", l.verified}});
    j["latency"] = a;
  }
  if (r.l2_read) {
    const auto& l = *r.l2_read;
    json e{{"bytes", l.bytes},
           {"passes", l.passes},
           {"bytes_read_per_launch", l.bytes * static_cast<std::size_t>(l.passes)},
           {"blocks", l.blocks},
           {"threads_per_block", l.threads},
           {"launches", l.launches},
           {"gbs", l.gbs},
           {"verified", l.verified}};
    if (l.timing) e["timing"] = timing_json(*l.timing);
    j["l2_read"] = e;
  }
  if (r.launch) {
    json points = json::array();
    for (const auto& p : r.launch->points) {
      json e{{"blocks", p.blocks}, {"ns_per_block", p.ns_per_block}};
      if (p.timing) e["timing"] = timing_json(*p.timing);
      points.push_back(std::move(e));
    }
    j["launch"] = {{"threads_per_block", r.launch->threads},
                   {"points", points},
                   {"block_launch_ns", r.launch->block_launch_ns},
                   {"verified", r.launch->verified}};
  }
  return j;
}

std::vector<std::pair<std::string, json>> recordings(const ProbeReport& r) {
  std::vector<std::pair<std::string, json>> out;
  if (r.coalescing) {
    const json problem{{"n", r.coalescing->n}};
    if (!r.coalescing->offset.empty()) {
      const auto s = offset_space();
      out.emplace_back("probe-offset.json",
                       recording("probe-offset", problem, r.device, s, curve_trials(s, "offset", r.coalescing->offset)));
    }
    if (!r.coalescing->stride.empty()) {
      const auto s = stride_space();
      out.emplace_back("probe-stride.json",
                       recording("probe-stride", problem, r.device, s, curve_trials(s, "stride", r.coalescing->stride)));
    }
  }
  if (!r.banks.empty()) {
    const auto s = bank_space();
    json trials = json::array();
    for (const auto& b : r.banks) {
      if (!b.timing) continue;
      json t{{"config", s.config_to_json(bank_config(b.variant))}, {"status", b.verified ? "ok" : "wrong_result"}};
      if (b.verified) t["time_s"] = b.timing->median_s;
      else t["reason"] = "output differs from the CPU reference";
      trials.push_back(std::move(t));
    }
    const json problem{{"reps", r.banks.front().reps}, {"blocks", r.banks.front().blocks}};
    out.emplace_back("probe-bank.json", recording("probe-bank", problem, r.device, s, trials));
  }
  return out;
}

output::Document to_document(const ProbeReport& r) {
  using output::Column;
  output::Document d;
  d.title = "memtune probe on " + r.device.name + " (sm_" + std::to_string(r.device.cc_major) +
            std::to_string(r.device.cc_minor) + ", " + std::to_string(r.device.sm_count) + " SMs), " +
            (r.cold ? "L2 flushed before each sample" : "warm caches") + "; driver's theoretical DRAM peak " +
            fmt(r.target.dram_bandwidth_gbs, 0) + " GB/s" +
            (r.l2_fetch_bytes > 0 ? "; L2 fetch granularity " + std::to_string(r.l2_fetch_bytes) + " B (cuCtxGetLimit)"
                                  : std::string{});
  d.data = to_json(r); // the rich JSON; the tables below are its views for people and CSV
  const auto median = [](const std::optional<Timing>& t) { return t ? json(t->median_s) : json(nullptr); };
  const auto yes = [](bool v) { return v ? "yes" : "NO"; };
  const Column verified{.key = "verified", .header = "verified", .text = false};
  const Column verified_text{.key = "verified_text", .header = "verified", .csv = false};
  const Column time_us{.key = "median_s", .header = "time us", .format = "%.2f", .scale = 1e6};
  auto table = [&](const std::string& key, std::string title) -> output::Table& {
    output::Table& t = d.add_table(key);
    t.title = std::move(title);
    t.json = false;
    return t;
  };
  if (r.copy) {
    output::Table& t = table("copy", "copy (" + std::to_string(r.copy->bytes) + " bytes, read + written)");
    t.columns = {{.key = "kind", .header = "kind"}, {.key = "bytes", .header = "bytes", .text = false}, time_us,
                 {.key = "gbs", .header = "GB/s", .format = "%.0f"},
                 {.key = "peak", .header = "%peak", .format = "%.1f", .scale = 100, .csv = false}, verified, verified_text};
    auto row = [&](const char* kind, const Timing& tm, double gbs, bool v) {
      t.rows.push_back({{"kind", kind}, {"bytes", r.copy->bytes}, {"median_s", tm.median_s}, {"gbs", gbs},
                        {"peak", gbs / r.target.dram_bandwidth_gbs}, {"verified", v ? 1 : 0}, {"verified_text", yes(v)}});
    };
    row("memcpy", r.copy->memcpy.timing, r.copy->memcpy.gbps, true);
    row("float4_kernel", r.copy->float4_timing, r.copy->float4_gbs, r.copy->float4_verified);
  }
  if (r.coalescing) {
    for (const std::string which : {"offset", "stride"}) {
      const auto& points = which == "offset" ? r.coalescing->offset : r.coalescing->stride;
      if (points.empty()) continue;
      output::Table& t = table(which, which + " (a[i " + (which == "offset" ? "+" : "*") + " s] += 1, n = " +
                                          std::to_string(r.coalescing->n) +
                                          " floats; GB/s of bytes requested, 2 * n * 4 / time)");
      t.columns = {{.key = which, .header = which}, {.key = "n", .header = "n", .text = false}, time_us,
                   {.key = "gbs", .header = "GB/s", .format = "%.0f"}, verified, verified_text};
      for (const auto& p : points)
        t.rows.push_back({{which, p.parameter}, {"n", r.coalescing->n}, {"median_s", median(p.timing)}, {"gbs", p.gbs},
                          {"verified", p.verified ? 1 : 0}, {"verified_text", yes(p.verified)}});
    }
  }
  if (!r.banks.empty()) {
    output::Table& t = table(
        "bank", "shared-memory banks (256 threads/block, " + std::to_string(r.banks.front().reps) + " loads/thread, " +
                    std::to_string(r.banks.front().blocks) +
                    " blocks; conflicts simulated per launch, compare with ncu "
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / _st.sum)");
    t.columns = {{.key = "variant", .header = "variant"},
                 {.key = "kernel", .header = "kernel"},
                 {.key = "width_bytes", .header = "width B", .text = false},
                 {.key = "stride", .header = "stride", .text = false},
                 {.key = "reps", .header = "reps", .text = false},
                 {.key = "blocks", .header = "blocks", .text = false},
                 {.key = "median_s", .header = "time us", .format = "%.2f", .scale = 1e6},
                 {.key = "ns_per_warp_load", .header = "ns/warp-ld", .format = "%.3f"},
                 {.key = "sim_load_ways", .header = "ways"},
                 {.key = "sim_load_conflicts_per_launch", .header = "sim ld confl"},
                 {.key = "sim_store_conflicts_per_launch", .header = "sim st confl"},
                 verified,
                 verified_text};
    for (const auto& b : r.banks)
      t.rows.push_back({{"variant", b.variant.name},
                        {"kernel", b.variant.kernel},
                        {"width_bytes", b.variant.width_bytes},
                        {"stride", b.variant.stride},
                        {"reps", b.reps},
                        {"blocks", b.blocks},
                        {"median_s", median(b.timing)},
                        {"ns_per_warp_load", b.timing ? json(b.ns_per_warp_load()) : json(nullptr)},
                        {"sim_load_ways", b.per_block.load_ways},
                        {"sim_load_conflicts_per_launch", b.simulated_load_conflicts()},
                        {"sim_store_conflicts_per_launch", b.simulated_store_conflicts()},
                        {"verified", b.verified ? 1 : 0},
                        {"verified_text", yes(b.verified)}});
  }
  if (!r.latency.empty()) {
    output::Table& t = table("latency", "latency (one thread, dependent loads over a random cycle, L1 bypassed)");
    t.columns = {{.key = "level", .header = "level"},          {.key = "bytes", .header = "bytes"},
                 {.key = "stride_bytes", .header = "stride B"}, {.key = "steps", .header = "steps"},
                 {.key = "launches", .header = "launches", .text = false},
                 {.key = "ns_per_load", .header = "ns/load", .format = "%.1f"}, verified, verified_text};
    for (const auto& l : r.latency)
      t.rows.push_back({{"level", l.level}, {"bytes", l.bytes}, {"stride_bytes", l.stride_bytes}, {"steps", l.steps},
                        {"launches", l.launches}, {"ns_per_load", l.ns_per_load}, {"verified", l.verified ? 1 : 0},
                        {"verified_text", yes(l.verified)}});
  }
  if (r.l2_read) {
    const auto& l = *r.l2_read;
    output::Table& t = table("l2_read", "L2 read bandwidth (" + std::to_string(l.blocks) + " blocks x " +
                                            std::to_string(l.threads) +
                                            " threads, float4 ld.global.cg over an L2-resident buffer; L2 never flushed)");
    t.columns = {{.key = "bytes", .header = "bytes"},   {.key = "passes", .header = "passes"},
                 {.key = "blocks", .header = "blocks", .text = false},
                 {.key = "threads_per_block", .header = "threads", .text = false}, time_us,
                 {.key = "gbs", .header = "GB/s", .format = "%.0f"}, verified, verified_text};
    t.rows.push_back({{"bytes", l.bytes}, {"passes", l.passes}, {"blocks", l.blocks}, {"threads_per_block", l.threads},
                      {"median_s", median(l.timing)}, {"gbs", l.gbs}, {"verified", l.verified ? 1 : 0},
                      {"verified_text", yes(l.verified)}});
  }
  if (r.launch) {
    output::Table& t = table("launch", "block launch (empty blocks of " + std::to_string(r.launch->threads) +
                                           " threads; ns/block = time / blocks)");
    // block_launch_ns (the fitted slope) repeats on every row of the CSV.
    t.columns = {{.key = "blocks", .header = "blocks"},
                 {.key = "threads_per_block", .header = "threads", .text = false},
                 time_us,
                 {.key = "ns_per_block", .header = "ns/block", .format = "%.3f"},
                 {.key = "block_launch_ns", .header = "fit", .text = false},
                 {.key = "verified", .header = "verified", .text = false}};
    for (const auto& p : r.launch->points)
      t.rows.push_back({{"blocks", p.blocks}, {"threads_per_block", r.launch->threads}, {"median_s", median(p.timing)},
                        {"ns_per_block", p.ns_per_block}, {"block_launch_ns", r.launch->block_launch_ns},
                        {"verified", r.launch->verified ? 1 : 0}});
    d.paragraph("block_launch_ns " + fmt(r.launch->block_launch_ns, 3) +
                " (slope between the two largest grids)  verified " + yes(r.launch->verified));
  }
  return d;
}

std::vector<std::pair<std::string, std::string>> csv_files(const ProbeReport& r) {
  std::vector<std::pair<std::string, std::string>> out;
  const output::Document d = to_document(r);
  for (const auto& b : d.blocks)
    if (b.kind == output::Block::Kind::table) out.emplace_back(b.table.key + ".csv", output::csv_text(b.table));
  return out;
}

void write_csv(const ProbeReport& r, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : csv_files(r)) io::write_file_atomically(dir / name, text, io::OutputKind::csv_table);
}

void print_tables(std::ostream& out, const ProbeReport& r) { output::print(out, to_document(r), output::Format::table); }

} // namespace memtune::probe
