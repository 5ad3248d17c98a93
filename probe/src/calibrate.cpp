#include <memtune/probe/calibrate.hpp>

#include <nlohmann/json.hpp>

#include <cctype>

namespace memtune::probe {

using nlohmann::json;

std::string target_name_from(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "local" : out;
}

Target calibrated_target(const ProbeReport& report, const Target* base, const std::string& name) {
  Target t = report.target;
  t.name = name;
  t.origin = "memtune probe";
  t.sources.clear();
  const std::string driver = "CUDA driver (cuDeviceGetAttribute) on " + report.device.name + ", read by memtune probe on " + report.date;
  const std::string from_base =
      base ? " (from the catalogue entry " + base->name + ": the driver does not report it)" : std::string{};
  for (const char* f : {"cc_major", "cc_minor", "sm_count", "warp_size", "max_threads_per_sm", "max_warps_per_sm",
                        "max_blocks_per_sm", "regs_per_sm", "smem_per_sm", "max_threads_per_block",
                        "max_regs_per_block", "smem_per_block", "smem_per_block_optin", "reserved_smem_per_block",
                        "l2_bytes", "sm_clock_mhz", "mem_clock_mhz"})
    t.sources[f] = driver;
  if (t.memory_bytes > 0)
    t.sources["memory_bytes"] = "CUDA driver (cuDeviceTotalMem) on " + report.device.name + ", read by memtune probe on " + report.date;
  t.sources["max_regs_per_thread"] = "CUDA C++ Programming Guide: 255 registers per thread on every cc >= 3.5";
  t.sources["bank_count"] = "CUDA C++ Programming Guide, 'Shared Memory': 32 banks on every cc >= 3.0";
  t.sources["bank_widths_bytes"] =
      "CUDA C++ Programming Guide, 'Shared Memory': a selectable 8-byte bank mode on cc 3.x only, fixed 4-byte banks since";
  t.sources["dram_bandwidth_gbs"] =
      driver + ": theoretical peak = 2 x memory clock x bus width / 8 (measured copy in \"measured\")";

  // Figures the driver does not give: the catalogue entry of the same GPU, else a stated assumption.
  const std::size_t smem_kb = t.smem_per_sm / 1024;
  if (base && !base->smem_carveouts_kb.empty() && static_cast<std::size_t>(base->smem_carveouts_kb.back()) == smem_kb) {
    t.smem_carveouts_kb = base->smem_carveouts_kb;
    t.sources["smem_carveouts_kb"] = base->sources.count("smem_carveouts_kb") ? base->sources.at("smem_carveouts_kb") + from_base : "catalogue" + from_base;
  } else {
    t.smem_carveouts_kb = {static_cast<int>(smem_kb)};
    t.sources["smem_carveouts_kb"] = "only the largest carve-out (the driver's shared memory per SM); smaller ones unknown";
  }
  if (base && base->l1_bytes >= t.smem_per_sm) {
    t.l1_bytes = base->l1_bytes;
    t.sources["l1_bytes"] = base->sources.count("l1_bytes") ? base->sources.at("l1_bytes") + from_base : "catalogue" + from_base;
  } else {
    t.l1_bytes = t.smem_per_sm;
    t.sources["l1_bytes"] = "lower bound: the driver's shared memory per SM (the unified L1/shared size is not reported)";
  }
  t.l2_bandwidth_gbs = base ? base->l2_bandwidth_gbs : 0.0;
  t.sources["l2_bandwidth_gbs"] = base && base->sources.count("l2_bandwidth_gbs")
                                      ? base->sources.at("l2_bandwidth_gbs") + from_base
                                      : "0 = unknown (not measured by memtune probe)";
  t.schedulers_per_sm = base ? base->schedulers_per_sm : 4;
  t.sources["schedulers_per_sm"] = base && base->sources.count("schedulers_per_sm")
                                       ? base->sources.at("schedulers_per_sm") + from_base
                                       : "assumed: 4 warp schedulers per SM (every architecture since Maxwell)";
  // The SM's pipes and caches: the catalogue entry's, else what every GPU
  // since Volta has (the driver reports none of them).
  const auto from_catalogue = [&](const char* field, auto Target::*member, auto fallback, const char* assumption) {
    t.*member = base ? base->*member : fallback;
    t.sources[field] = base && base->sources.count(field) ? base->sources.at(field) + from_base : assumption;
  };
  from_catalogue("dispatch_per_scheduler", &Target::dispatch_per_scheduler, 1,
                 "assumed: one dispatch unit per scheduler (every architecture since Volta)");
  from_catalogue("fp32_lanes_per_sm", &Target::fp32_lanes_per_sm, 128, "assumed: 128 FP32 lanes per SM");
  from_catalogue("l1_caches_global_loads", &Target::l1_caches_global_loads, true,
                 "assumed: L1 caches global loads (every architecture since Volta)");
  from_catalogue("read_only_cache_bytes", &Target::read_only_cache_bytes, std::size_t{0},
                 "assumed: __ldg goes through the unified L1/texture cache (every architecture since Maxwell)");
  from_catalogue("l1_write_combining_lines", &Target::l1_write_combining_lines, 4,
                 "assumed: L1 merges a warp's stores to its 4 most recent lines (measured on an H100, docs/model.md)");
  if (base) t.aliases.clear();

  Target::Measured m;
  if (report.copy) {
    m.copy_gbs = report.copy->memcpy.gbps;
    m.float4_copy_gbs = report.copy->float4_verified ? report.copy->float4_gbs : 0.0;
  }
  for (const auto& l : report.latency) {
    if (!l.verified) continue;
    if (l.level == "dram") m.dram_latency_ns = l.ns_per_load;
    if (l.level == "l2") m.l2_latency_ns = l.ns_per_load;
  }
  if (report.l2_read && report.l2_read->verified && report.l2_read->timing) m.l2_read_gbs = report.l2_read->gbs;
  if (report.launch && report.launch->verified) m.block_launch_ns = report.launch->block_launch_ns;
  m.l2_fetch_bytes = static_cast<double>(report.l2_fetch_bytes);
  t.measured = m;
  const std::string l2_footprint =
      report.l2_read ? std::to_string(report.l2_read->bytes) + " bytes" : std::string("L2 / 4");
  std::string grids = "the two largest grids";
  if (report.launch && report.launch->points.size() >= 2) {
    const auto& p = report.launch->points;
    grids = std::to_string(p[p.size() - 2].blocks) + " and " + std::to_string(p.back().blocks) + " blocks";
  }
  t.sources["measured"] =
      "measured by memtune probe on " + report.date + " on " + report.device.name +
      " (copy: L2 flushed, median; latency: one-thread pointer chase, L1 bypassed, stride 128 B, random cycle; " +
      "l2_read_gbs: a full-occupancy grid reading an L2-resident buffer of " + l2_footprint +
      " with float4 ld.global.cg, L2 warm (never flushed), bytes read / median launch time; block_launch_ns: " +
      "empty 32-thread blocks, median time difference between " + grids + " / block difference; " +
      "l2_fetch_bytes: the driver's CU_LIMIT_MAX_L2_FETCH_GRANULARITY (cuCtxGetLimit); 0 = not measured)";
  if (m.l2_read_gbs > 0 && t.l2_bandwidth_gbs == 0) {
    t.l2_bandwidth_gbs = m.l2_read_gbs;
    t.sources["l2_bandwidth_gbs"] = "measured by memtune probe on " + report.date +
                                    ": all SMs reading an L2-resident buffer with ld.global.cg";
  }
  if (m.dram_latency_ns > 0) {
    t.memory_latency_ns = m.dram_latency_ns;
    t.sources["memory_latency_ns"] = "measured by memtune probe on " + report.date +
                                     ": one-thread pointer chase over a buffer larger than L2, L1 bypassed";
  } else if (base) {
    t.memory_latency_ns = base->memory_latency_ns;
    t.sources["memory_latency_ns"] =
        (base->sources.count("memory_latency_ns") ? base->sources.at("memory_latency_ns") : "catalogue") + from_base;
  } else {
    t.memory_latency_ns = 500;
    t.sources["memory_latency_ns"] = "assumed 500 ns: not measured (run memtune probe with the latency probe)";
  }
  return t;
}

json target_file_json(const Target& t) {
  json j;
  j["schema_version"] = 1;
  j["name"] = t.name;
  j["display_name"] = t.display_name;
  j["aliases"] = t.aliases;
  j["cc_major"] = t.cc_major;
  j["cc_minor"] = t.cc_minor;
  j["sm_count"] = t.sm_count;
  j["warp_size"] = t.warp_size;
  j["max_threads_per_sm"] = t.max_threads_per_sm;
  j["max_warps_per_sm"] = t.max_warps_per_sm;
  j["max_blocks_per_sm"] = t.max_blocks_per_sm;
  j["regs_per_sm"] = t.regs_per_sm;
  j["smem_per_sm"] = t.smem_per_sm;
  j["smem_carveouts_kb"] = t.smem_carveouts_kb;
  j["max_threads_per_block"] = t.max_threads_per_block;
  j["max_regs_per_block"] = t.max_regs_per_block;
  j["max_regs_per_thread"] = t.max_regs_per_thread;
  j["smem_per_block"] = t.smem_per_block;
  j["smem_per_block_optin"] = t.smem_per_block_optin;
  j["reserved_smem_per_block"] = t.reserved_smem_per_block;
  j["bank_count"] = t.bank_count;
  j["bank_widths_bytes"] = t.bank_widths_bytes;
  j["l1_bytes"] = t.l1_bytes;
  j["l2_bytes"] = t.l2_bytes;
  if (t.memory_bytes > 0) j["memory_bytes"] = t.memory_bytes;
  j["dram_bandwidth_gbs"] = t.dram_bandwidth_gbs;
  j["memory_latency_ns"] = t.memory_latency_ns;
  j["sm_clock_mhz"] = t.sm_clock_mhz;
  j["mem_clock_mhz"] = t.mem_clock_mhz;
  j["l2_bandwidth_gbs"] = t.l2_bandwidth_gbs;
  j["schedulers_per_sm"] = t.schedulers_per_sm;
  j["dispatch_per_scheduler"] = t.dispatch_per_scheduler;
  j["fp32_lanes_per_sm"] = t.fp32_lanes_per_sm;
  j["l1_caches_global_loads"] = t.l1_caches_global_loads;
  j["read_only_cache_bytes"] = t.read_only_cache_bytes;
  j["l1_write_combining_lines"] = t.l1_write_combining_lines;
  if (t.measured)
    j["measured"] = {{"copy_gbs", t.measured->copy_gbs},
                     {"float4_copy_gbs", t.measured->float4_copy_gbs},
                     {"dram_latency_ns", t.measured->dram_latency_ns},
                     {"l2_latency_ns", t.measured->l2_latency_ns},
                     {"l2_read_gbs", t.measured->l2_read_gbs},
                     {"block_launch_ns", t.measured->block_launch_ns},
                     {"l2_fetch_bytes", t.measured->l2_fetch_bytes}};
  j["sources"] = t.sources;
  return j;
}

} // namespace memtune::probe
