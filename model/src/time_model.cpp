#include <memtune/model/time_model.hpp>

#include <memtune/model/global_access.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace memtune::model {

const char* to_string(Bound b) {
  switch (b) {
  case Bound::dram: return "DRAM";
  case Bound::l2: return "L2";
  case Bound::shared_memory: return "shared memory";
  case Bound::issue: return "issue";
  case Bound::block_pipeline: return "block pipeline";
  case Bound::block_launch: return "block launch";
  case Bound::copy_engine: return "copy engine";
  }
  return "?";
}

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string bytes_text(double b) {
  if (b >= 1e9) return fmt("%.3g GB", b / 1e9);
  if (b >= 1e6) return fmt("%.3g MB", b / 1e6);
  if (b >= 1e3) return fmt("%.3g kB", b / 1e3);
  return fmt("%.0f B", b);
}

} // namespace

TimePrediction predict_time(const Target& t, const KernelFacts& f, const TimeModelParams& p) {
  if (f.dram_bytes < 0 || f.l2_bytes < 0 || f.l2_store_bytes < 0 || f.l2_write_requests < 0 ||
      f.smem_wavefronts < 0 || f.warp_instructions < 0 || f.fp32_instructions < 0 || f.loads_in_flight_per_thread < 0 || f.bytes_per_load < 0 ||
      f.bulk_copies < 0 || f.bulk_copy_bytes < 0)
    throw std::invalid_argument("time model: kernel facts must be non-negative");
  if (f.l2_store_bytes > f.l2_bytes)
    throw std::invalid_argument("time model: l2_store_bytes (the stores' part) exceeds l2_bytes");
  if (t.sm_count <= 0 || t.sm_clock_mhz <= 0 || t.dram_bandwidth_gbs <= 0 || t.memory_latency_ns <= 0 ||
      t.schedulers_per_sm <= 0)
    throw std::invalid_argument("time model: target " + t.name + " lacks SMs, clock, bandwidth, latency or schedulers");
  if (f.dram_bytes > 0 && (f.warps_per_sm <= 0 || f.loads_in_flight_per_thread <= 0 || f.bytes_per_load <= 0))
    throw std::invalid_argument("time model: DRAM traffic needs warps_per_sm, loads in flight and bytes per load > 0");
  if (p.dram_efficiency <= 0 || p.dram_efficiency > 1 || p.smem_wavefronts_per_clock <= 0 ||
      p.block_launch_ns_per_sm < 0 || p.l2_write_request_reads <= 0 || p.l2_efficiency <= 0 || p.l2_efficiency > 1 ||
      p.instruction_overhead < 1 || p.loaded_latency_gain < 0 || p.bulk_copy_cycles_per_request < 0 ||
      p.bulk_copy_bytes_per_cycle <= 0 || !(p.knee_exponent >= 0))
    throw std::invalid_argument("time model: dram_efficiency must be in (0, 1], wavefronts per clock > 0, "
                                "block launch ns >= 0, L2 write request cost > 0, l2_efficiency in (0, 1], "
                                "instruction_overhead >= 1, loaded_latency_gain >= 0, bulk copy cycles >= 0, bytes per cycle > 0 "
                                "and knee_exponent >= 0");

  const double sms = t.sm_count;
  const double clock_hz = t.sm_clock_mhz * 1e6;

  TimePrediction r;
  r.peak_dram_gbs = t.dram_bandwidth_gbs;
  r.bandwidth_ceiling_gbs = t.dram_bandwidth_gbs * p.dram_efficiency;
  // Little's law: throughput = concurrency / latency. Each resident thread keeps
  // loads_in_flight loads of bytes_per_load outstanding; bytes per ns = GB/s.
  r.bytes_in_flight_per_sm = f.warps_per_sm * 32.0 * f.loads_in_flight_per_thread * f.bytes_per_load;
  r.latency_bound_gbs = r.bytes_in_flight_per_sm * sms / t.memory_latency_ns;
  r.achievable_dram_gbs = std::min(r.bandwidth_ceiling_gbs, r.latency_bound_gbs);

  BoundTime dram{Bound::dram, 0, true, {}};
  if (f.dram_bytes > 0) {
    dram.seconds = f.dram_bytes / (r.achievable_dram_gbs * 1e9);
    std::ostringstream d;
    d << bytes_text(f.dram_bytes) << " at " << fmt("%.0f", r.achievable_dram_gbs) << " GB/s";
    if (r.latency_limited())
      d << " (latency-limited: " << fmt("%.3g", r.bytes_in_flight_per_sm / 1024.0) << " KiB in flight/SM × "
        << t.sm_count << " SMs / " << fmt("%.0f", t.memory_latency_ns) << " ns; peak "
        << fmt("%.0f", r.peak_dram_gbs) << " GB/s)";
    else
      d << " (" << fmt("%.0f", p.dram_efficiency * 100) << "% of peak " << fmt("%.0f", r.peak_dram_gbs) << " GB/s)";
    dram.detail = d.str();
  } else {
    dram.detail = "no DRAM traffic";
  }

  // L2: every sector a warp request touches crosses L2 <-> SM, a store's
  // partial sector as much as a full one. NVIDIA publishes no L2 bandwidth, so
  // the figure is the target file's, else the one memtune probe measured.
  const bool l2_measured = t.measured && t.measured->l2_read_gbs > 0;
  const double l2_gbs = l2_measured ? t.measured->l2_read_gbs : t.l2_bandwidth_gbs * p.l2_efficiency;
  BoundTime l2{Bound::l2, 0, l2_gbs > 0, {}};
  if (!l2.modelled) {
    l2.detail = "not modelled: no L2 bandwidth figure for " + t.name + " (memtune probe measures one)";
  } else {
    // Stores: each write request L1 sends costs l2_write_request_reads line
    // reads, however few of its bytes are written (partial sectors included).
    const bool per_request = f.l2_write_requests > 0;
    const double line = static_cast<double>(line_bytes);
    const double store_cost = per_request ? f.l2_write_requests * line * p.l2_write_request_reads : f.l2_store_bytes;
    l2.seconds = (f.l2_bytes - f.l2_store_bytes + store_cost) / (l2_gbs * 1e9);
    l2.detail = bytes_text(f.l2_bytes) + " of sectors";
    if (per_request)
      l2.detail += " (stores: " + fmt("%.3g", f.l2_write_requests / 1e6) + " M write requests at " +
                   fmt("%.2g", p.l2_write_request_reads) + " line reads each)";
    l2.detail += " at " + fmt("%.0f", l2_gbs) + " GB/s" +
                 (l2_measured ? " (measured L2 read bandwidth)"
                              : " (" + fmt("%.0f", 100 * p.l2_efficiency) + "% of the " +
                                    fmt("%.0f", t.l2_bandwidth_gbs) + " GB/s theoretical)");
  }

  // An SM's own resources (shared memory, issue, the copy engine) serve the
  // blocks it is given, and the block scheduler gives each SM floor or ceil
  // of blocks / SMs of them: the busiest SM sets the time. 144 equal blocks
  // on 132 SMs take two blocks' time, not 1.09 (the fdtd at 376^3 with 144
  // tile columns of one z-chunk: 207.6 us measured on an H200).
  const double blocks_per_working_sm = f.blocks > 0 ? f.blocks / sms : 0.0;
  const double busiest_sm_blocks = std::ceil(blocks_per_working_sm - 1e-9);
  const double busiest = f.blocks > 0 ? busiest_sm_blocks / blocks_per_working_sm : 1.0;
  const std::string busiest_text =
      busiest > 1.0 + 1e-9 ? ", × " + fmt("%.3g", busiest) + " for the busiest SM's " + fmt("%.0f", busiest_sm_blocks) +
                                 " blocks against " + fmt("%.3g", blocks_per_working_sm) + " on average"
                           : std::string();

  BoundTime smem{Bound::shared_memory, 0, true, {}};
  smem.seconds = busiest * f.smem_wavefronts / (sms * p.smem_wavefronts_per_clock * clock_hz);
  smem.detail = fmt("%.4g", f.smem_wavefronts) + " wavefronts / (" + std::to_string(t.sm_count) + " SMs × " +
                fmt("%.0f", t.sm_clock_mhz) + " MHz)" + busiest_text;

  // Issue: each scheduler dispatches up to dispatch_per_scheduler
  // instructions of a warp per clock (Kepler to Pascal pair independent
  // ones: dual issue), but FP32 instructions also need the FP32 lanes: 192
  // per Kepler SMX (6 warp instructions per clock for 8 dispatch slots), 64
  // per GA100 SM (2 for 4).
  BoundTime issue{Bound::issue, 0, true, {}};
  const double slots = static_cast<double>(t.schedulers_per_sm) * std::max(1, t.dispatch_per_scheduler);
  const double dispatch_s = p.instruction_overhead * f.warp_instructions / (sms * slots * clock_hz);
  const double fp32_rate = std::max(1, t.fp32_lanes_per_sm) / 32.0; // warp instructions per SM per clock
  const double fp32_s = f.fp32_instructions / (sms * fp32_rate * clock_hz);
  const double even_issue_s = std::max(dispatch_s, fp32_s); // were the blocks spread evenly
  issue.seconds = busiest * even_issue_s;
  if (fp32_s > dispatch_s)
    issue.detail = fmt("%.4g", f.fp32_instructions) + " FP32 warp instructions / (" + std::to_string(t.sm_count) +
                   " SMs × " + std::to_string(t.fp32_lanes_per_sm) + " FP32 lanes / 32 × " +
                   fmt("%.0f", t.sm_clock_mhz) + " MHz)";
  else
    issue.detail = fmt("%.4g", f.warp_instructions * p.instruction_overhead) + " warp instructions / (" + std::to_string(t.sm_count) +
                   " SMs × " + std::to_string(t.schedulers_per_sm) + " schedulers" +
                   (t.dispatch_per_scheduler > 1 ? " × " + std::to_string(t.dispatch_per_scheduler) + " dispatch" : "") +
                   " × " + fmt("%.0f", t.sm_clock_mhz) + " MHz)";
  issue.detail += busiest_text;

  // Block pipeline: waves of resident blocks, each living its dependent
  // memory round trips plus the time its warps need to issue their
  // instructions while sharing the SM's schedulers with every other resident
  // warp. A round trip takes the loaded latency: queueing in a busy memory
  // system lengthens it by loaded_latency_gain x the DRAM utilisation (the
  // share of the kernel's time its DRAM traffic needs at full bandwidth).
  BoundTime pipeline{Bound::block_pipeline, 0, f.blocks > 0 && f.blocks_per_sm > 0, {}};
  // Waves: the blocks of a grid live equally long, so with whole_waves a
  // last wave that fills only part of the GPU still takes a block's life
  // (a grid of 2.18 waves takes three), though a shorter one: its SMs hold
  // fewer warps, so each warp gets more of the SM's issue. A grid of at
  // most one wave takes one life at the occupancy's warps, as the other
  // bounds assume (the bytes in flight count the occupancy's warps too).
  const double block_slots = pipeline.modelled ? sms * f.blocks_per_sm : 0.0;
  const double exact_waves = pipeline.modelled ? f.blocks / block_slots : 0.0;
  // Without whole_waves a grid of more than one wave costs its exact number of lives.
  const bool fractional = !p.whole_waves || exact_waves <= 1.0;
  const double full_waves = fractional ? std::max(1.0, exact_waves) : std::floor(exact_waves + 1e-9);
  const double tail_blocks = fractional ? 0.0 : std::max(0.0, f.blocks - full_waves * block_slots);
  const double warps_per_block =
      f.warps_per_block > 0 ? f.warps_per_block : pipeline.modelled ? f.warps_per_sm / f.blocks_per_sm : 0.0;
  // A grid of at most one wave: the busiest SM's blocks share its issue
  // (144 blocks on 132 SMs: 12 SMs hold two), not the average SM's.
  const double wave_warps =
      fractional && pipeline.modelled
          ? std::max(f.warps_per_sm, std::min<double>(f.blocks_per_sm, busiest_sm_blocks) * warps_per_block)
          : f.warps_per_sm;
  const double tail_warps = std::min(f.warps_per_sm, std::ceil(tail_blocks / sms - 1e-9) * warps_per_block);
  const double waves = full_waves + (tail_blocks > 0.5 ? 1.0 : 0.0); // lives one after another
  // A warp issues at most dispatch_per_scheduler instructions per clock, and
  // shares the SM's issue rate (the issue bound's, FP32 lanes included) with
  // the other resident warps.
  const double sm_issue_rate = even_issue_s > 0 ? p.instruction_overhead * f.warp_instructions /
                                                     (even_issue_s * sms * clock_hz)
                                               : slots;
  const auto issue_share = [&](double warps) { // cycles per instruction of one warp, `warps` resident per SM
    return 1.0 / std::min(static_cast<double>(std::max(1, t.dispatch_per_scheduler)), sm_issue_rate / std::max(1.0, warps));
  };
  const auto instructions_s = [&](double warps) {
    return p.instruction_overhead * f.instructions_per_warp * issue_share(warps) / clock_hz;
  };
  const auto block_seconds = [&](double latency_ns, double warps) {
    return f.memory_round_trips_per_block * latency_ns * 1e-9 + instructions_s(warps);
  };
  // The waves' lives: the full ones with the occupancy's warps, the last part-filled one with its own.
  const auto waves_seconds = [&](double latency_ns) {
    return (full_waves > 0 ? full_waves * block_seconds(latency_ns, wave_warps) : 0.0) +
           (tail_blocks > 0.5 ? block_seconds(latency_ns, tail_warps) : 0.0);
  };
  double loaded_latency_ns = t.memory_latency_ns;
  if (pipeline.modelled) {
    double unloaded = waves_seconds(t.memory_latency_ns);
    for (const BoundTime* b : {&dram, &l2, &smem, &issue}) unloaded = std::max(unloaded, b->modelled ? b->seconds : 0.0);
    const double utilisation = unloaded > 0 ? std::min(1.0, dram.seconds / unloaded) : 0.0;
    loaded_latency_ns = t.memory_latency_ns * (1 + p.loaded_latency_gain * utilisation);
    const double block_s = block_seconds(loaded_latency_ns, wave_warps);
    pipeline.seconds = waves_seconds(loaded_latency_ns);
    // Which part of a block's life dominates: its warps' instructions
    // (issue) or its dependent memory round trips (latency).
    const double block_instructions_s = instructions_s(wave_warps);
    const bool issue_dominates = block_instructions_s > block_s - block_instructions_s;
    pipeline.detail = std::string(issue_dominates ? "issue within each block: " : "memory latency within each block: ") +
                      fmt("%.3g", exact_waves) + " waves" +
                      (tail_blocks > 0.5 ? " (" + fmt("%.0f", waves) + " lives)" : std::string()) +
                      " of " + std::to_string(f.blocks_per_sm) + " blocks/SM x " +
                      fmt("%.3g", block_s * 1e6) + " us per block (" + fmt("%.0f", f.memory_round_trips_per_block) +
                      " memory round trip(s) of " + fmt("%.0f", loaded_latency_ns) + " ns loaded latency + " +
                      fmt("%.0f", f.instructions_per_warp * p.instruction_overhead) + " instructions/warp at 1 per " +
                      fmt("%.2g", issue_share(wave_warps)) + " cycles)";
  } else {
    pipeline.detail = "not modelled: no block facts";
  }
  // Block launch: the block scheduler hands out blocks at a finite rate, so a
  // launch of very many short blocks (32-thread blocks, one item each) is
  // bound by the number of blocks, whatever its bytes.
  const bool launch_measured = t.measured && t.measured->block_launch_ns > 0;
  const double ns_per_block = launch_measured ? t.measured->block_launch_ns : p.block_launch_ns_per_sm / sms;
  BoundTime launch{Bound::block_launch, 0, f.blocks > 0, {}};
  if (launch.modelled) {
    launch.seconds = f.blocks * ns_per_block * 1e-9;
    launch.detail = fmt("%.0f", f.blocks) + " blocks at " + fmt("%.2g", ns_per_block) + " ns each GPU-wide (" +
                    (launch_measured ? std::string("measured by memtune probe")
                                     : fmt("%.0f", p.block_launch_ns_per_sm) + " ns per block per SM, assumed") +
                    ")";
  } else {
    launch.detail = "not modelled: no block count";
  }
  // Copy engine: each SM's bulk copies one after another (the busiest SM's
  // share), idle while the blocks feeding it wait (TimeModelParams).
  BoundTime copy_engine{Bound::copy_engine, 0, f.bulk_copies > 0, {}};
  if (copy_engine.modelled) {
    const double cycles = f.bulk_copies * p.bulk_copy_cycles_per_request + f.bulk_copy_bytes / p.bulk_copy_bytes_per_cycle;
    const int held = std::max(1, f.blocks_held_per_sm > 0 ? f.blocks_held_per_sm : f.blocks_per_sm);
    const double idle = 1.0 + 1.0 / held; // the engine waits while its blocks do
    copy_engine.seconds = busiest * idle * cycles / (sms * clock_hz);
    copy_engine.detail = fmt("%.4g", f.bulk_copies) + " bulk copies of " + bytes_text(f.bulk_copy_bytes) + " / (" +
                         std::to_string(t.sm_count) + " SMs' copy engines at " +
                         fmt("%.0f", p.bulk_copy_cycles_per_request) + " cycles a copy + " +
                         fmt("%.0f", p.bulk_copy_bytes_per_cycle) + " B/cycle), × " + fmt("%.2g", idle) +
                         " for the engine's idle time with " + std::to_string(held) + " block(s) per SM feeding it" +
                         busiest_text;
  } else {
    copy_engine.detail = "not modelled: no bulk copies";
  }
  r.bounds = {dram, l2, smem, issue, pipeline, launch, copy_engine};
  for (const auto& b : r.bounds)
    if (b.modelled && b.seconds > r.seconds) {
      r.seconds = b.seconds;
      r.binding = b.bound;
    }
  // Imperfect overlap. A block loads, waits at __syncthreads, then computes
  // from shared memory (a warp without a barrier: loads, waits for its data,
  // computes): its memory and SM phases are serial, and only the other
  // resident units can fill one's gaps. With k units per SM the exposed part
  // of the smaller side is about 1/k of it (k = 1: the phases add up; k
  // large: the max-of-bounds roofline).
  const double memory = r.memory_seconds();
  if (f.overlap_units_per_sm > 0) {
    const double sm_side = std::max(smem.seconds, issue.seconds);
    r.exposed_seconds = std::min(memory, sm_side) / f.overlap_units_per_sm;
    r.seconds = std::max(r.seconds, std::max(memory, sm_side) + r.exposed_seconds);
  }
  // The knee where the memory time, the block pipeline and the block launch
  // meet (TimeModelParams::knee_exponent). The SM side is left to the
  // overlap term above: it already charges the part resident units cannot hide.
  if (p.knee_exponent > 0) {
    const double parts[] = {memory, pipeline.modelled ? pipeline.seconds : 0.0, launch.modelled ? launch.seconds : 0.0};
    const double largest = *std::max_element(std::begin(parts), std::end(parts));
    if (largest > 0) {
      double sum = 0;
      for (double t : parts) sum += std::pow(t / largest, p.knee_exponent); // scaled: no overflow at any exponent
      r.seconds = std::max(r.seconds, largest * std::pow(sum, 1.0 / p.knee_exponent));
    }
  }
  return r;
}

double TimePrediction::memory_seconds() const {
  const BoundTime& l2 = bound(Bound::l2);
  return std::max(bound(Bound::dram).seconds, l2.modelled ? l2.seconds : 0.0);
}

const BoundTime* TimePrediction::runner_up() const {
  const BoundTime* second = nullptr;
  for (const auto& b : bounds)
    if (b.modelled && b.bound != binding && b.bound != Bound::copy_engine && (!second || b.seconds > second->seconds))
      second = &b;
  return second;
}

std::string TimePrediction::describe() const {
  const BoundTime& b = bound(binding);
  return fmt("%.4g", seconds * 1e6) + " us, " + to_string(binding) + "-bound: " + b.detail;
}

} // namespace memtune::model
