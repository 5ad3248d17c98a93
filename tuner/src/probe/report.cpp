#include <memtune/probe/report.hpp>
#include <memtune/version.hpp>

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

std::string csv_number(double v) {
  std::ostringstream s;
  s << std::setprecision(10) << v;
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

std::vector<std::pair<std::string, std::string>> csv_files(const ProbeReport& r) {
  std::vector<std::pair<std::string, std::string>> out;
  auto t = [](const std::optional<Timing>& x) { return x ? csv_number(x->median_s) : std::string{}; };
  if (r.copy) {
    std::ostringstream s;
    s << "kind,bytes,median_s,gbs,verified\n";
    s << "memcpy," << r.copy->bytes << "," << csv_number(r.copy->memcpy.timing.median_s) << ","
      << csv_number(r.copy->memcpy.gbps) << ",1\n";
    s << "float4_kernel," << r.copy->bytes << "," << csv_number(r.copy->float4_timing.median_s) << ","
      << csv_number(r.copy->float4_gbs) << "," << (r.copy->float4_verified ? 1 : 0) << "\n";
    out.emplace_back("copy.csv", s.str());
  }
  if (r.coalescing) {
    for (const auto* which : {"offset", "stride"}) {
      const auto& points = std::string(which) == "offset" ? r.coalescing->offset : r.coalescing->stride;
      if (points.empty()) continue;
      std::ostringstream s;
      s << which << ",n,median_s,gbs,verified\n";
      for (const auto& p : points)
        s << p.parameter << "," << r.coalescing->n << "," << t(p.timing) << "," << csv_number(p.gbs) << ","
          << (p.verified ? 1 : 0) << "\n";
      out.emplace_back(std::string(which) + ".csv", s.str());
    }
  }
  if (!r.banks.empty()) {
    std::ostringstream s;
    s << "variant,kernel,width_bytes,stride,reps,blocks,median_s,ns_per_warp_load,sim_load_ways,"
         "sim_load_conflicts_per_launch,sim_store_conflicts_per_launch,verified\n";
    for (const auto& b : r.banks)
      s << b.variant.name << "," << b.variant.kernel << "," << b.variant.width_bytes << "," << b.variant.stride << ","
        << b.reps << "," << b.blocks << "," << t(b.timing) << "," << csv_number(b.ns_per_warp_load()) << ","
        << b.per_block.load_ways << "," << b.simulated_load_conflicts() << "," << b.simulated_store_conflicts() << ","
        << (b.verified ? 1 : 0) << "\n";
    out.emplace_back("bank.csv", s.str());
  }
  if (!r.latency.empty()) {
    std::ostringstream s;
    s << "level,bytes,stride_bytes,steps,launches,ns_per_load,verified\n";
    for (const auto& l : r.latency)
      s << l.level << "," << l.bytes << "," << l.stride_bytes << "," << l.steps << "," << l.launches << ","
        << csv_number(l.ns_per_load) << "," << (l.verified ? 1 : 0) << "\n";
    out.emplace_back("latency.csv", s.str());
  }
  if (r.l2_read) {
    const auto& l = *r.l2_read;
    std::ostringstream s;
    s << "bytes,passes,blocks,threads_per_block,median_s,gbs,verified\n";
    s << l.bytes << "," << l.passes << "," << l.blocks << "," << l.threads << "," << t(l.timing) << ","
      << csv_number(l.gbs) << "," << (l.verified ? 1 : 0) << "\n";
    out.emplace_back("l2_read.csv", s.str());
  }
  if (r.launch) {
    // One row per grid; block_launch_ns (the fitted slope) repeats on every row.
    std::ostringstream s;
    s << "blocks,threads_per_block,median_s,ns_per_block,block_launch_ns,verified\n";
    for (const auto& p : r.launch->points)
      s << p.blocks << "," << r.launch->threads << "," << t(p.timing) << "," << csv_number(p.ns_per_block) << ","
        << csv_number(r.launch->block_launch_ns) << "," << (r.launch->verified ? 1 : 0) << "\n";
    out.emplace_back("launch.csv", s.str());
  }
  return out;
}

void write_csv(const ProbeReport& r, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : csv_files(r)) {
    std::ofstream f(dir / name);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + (dir / name).string());
  }
}

void print_tables(std::ostream& out, const ProbeReport& r) {
  out << "memtune probe on " << r.device.name << " (sm_" << r.device.cc_major << r.device.cc_minor << ", "
      << r.device.sm_count << " SMs), " << (r.cold ? "L2 flushed before each sample" : "warm caches")
      << "; driver's theoretical DRAM peak " << fmt(r.target.dram_bandwidth_gbs, 0) << " GB/s";
  if (r.l2_fetch_bytes > 0) out << "; L2 fetch granularity " << r.l2_fetch_bytes << " B (cuCtxGetLimit)";
  out << "\n";
  const char* check = "  verified";
  auto ok = [](bool v) { return v ? "yes" : "NO"; };
  auto us = [](const std::optional<Timing>& t) { return t ? fmt(t->median_s * 1e6, 2) : std::string("-"); };
  if (r.copy) {
    out << "\ncopy (" << r.copy->bytes << " bytes, read + written)\n";
    out << "  kind              time us      GB/s  %peak" << check << "\n";
    auto row = [&](const char* kind, const Timing& t, double gbs, bool v) {
      out << "  " << std::left << std::setw(16) << kind << std::right << std::setw(9) << fmt(t.median_s * 1e6, 2)
          << std::setw(10) << fmt(gbs, 0) << std::setw(7) << fmt(100.0 * gbs / r.target.dram_bandwidth_gbs, 1)
          << std::setw(10) << ok(v) << "\n";
    };
    row("memcpy DtoD", r.copy->memcpy.timing, r.copy->memcpy.gbps, true);
    row("float4 kernel", r.copy->float4_timing, r.copy->float4_gbs, r.copy->float4_verified);
  }
  if (r.coalescing) {
    for (const auto* which : {"offset", "stride"}) {
      const auto& points = std::string(which) == "offset" ? r.coalescing->offset : r.coalescing->stride;
      if (points.empty()) continue;
      out << "\n" << which << " (a[i " << (std::string(which) == "offset" ? "+" : "*") << " s] += 1, n = "
          << r.coalescing->n << " floats; GB/s of bytes requested, 2 * n * 4 / time)\n";
      out << "  " << std::setw(6) << which << "  time us      GB/s" << check << "\n";
      for (const auto& p : points)
        out << "  " << std::setw(6) << p.parameter << std::setw(9) << us(p.timing) << std::setw(10) << fmt(p.gbs, 0)
            << std::setw(10) << ok(p.verified) << "\n";
    }
  }
  if (!r.banks.empty()) {
    out << "\nshared-memory banks (256 threads/block, " << r.banks.front().reps << " loads/thread, "
        << r.banks.front().blocks << " blocks; conflicts simulated per launch, compare with ncu "
        << "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / _st.sum)\n";
    out << "  variant          kernel                     ways   sim ld confl  sim st confl   time us  ns/warp-ld"
        << check << "\n";
    for (const auto& b : r.banks)
      out << "  " << std::left << std::setw(16) << b.variant.name << " " << std::setw(26) << b.variant.kernel
          << std::right << std::setw(5) << b.per_block.load_ways << std::setw(15) << b.simulated_load_conflicts()
          << std::setw(14) << b.simulated_store_conflicts() << std::setw(10) << us(b.timing) << std::setw(12)
          << (b.timing ? fmt(b.ns_per_warp_load(), 3) : std::string("-")) << std::setw(10) << ok(b.verified) << "\n";
  }
  if (!r.latency.empty()) {
    out << "\nlatency (one thread, dependent loads over a random cycle, L1 bypassed)\n";
    out << "  level        bytes  stride B    steps  ns/load" << check << "\n";
    for (const auto& l : r.latency)
      out << "  " << std::left << std::setw(6) << l.level << std::right << std::setw(12) << l.bytes << std::setw(10)
          << l.stride_bytes << std::setw(9) << l.steps << std::setw(9) << fmt(l.ns_per_load, 1) << std::setw(10)
          << ok(l.verified) << "\n";
  }
  if (r.l2_read) {
    const auto& l = *r.l2_read;
    out << "\nL2 read bandwidth (" << l.blocks << " blocks x " << l.threads
        << " threads, float4 ld.global.cg over an L2-resident buffer; L2 never flushed)\n";
    out << "        bytes  passes   time us      GB/s" << check << "\n";
    out << "  " << std::setw(11) << l.bytes << std::setw(8) << l.passes << std::setw(10) << us(l.timing)
        << std::setw(10) << fmt(l.gbs, 0) << std::setw(10) << ok(l.verified) << "\n";
  }
  if (r.launch) {
    out << "\nblock launch (empty blocks of " << r.launch->threads << " threads; ns/block = time / blocks)\n";
    out << "     blocks   time us  ns/block\n";
    for (const auto& p : r.launch->points)
      out << "  " << std::setw(9) << p.blocks << std::setw(10) << us(p.timing) << std::setw(10)
          << fmt(p.ns_per_block, 3) << "\n";
    out << "  block_launch_ns " << fmt(r.launch->block_launch_ns, 3)
        << " (slope between the two largest grids)  verified " << ok(r.launch->verified) << "\n";
  }
}

} // namespace memtune::probe
