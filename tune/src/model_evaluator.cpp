#include <memtune/model/global_replay.hpp>
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/model/occupancy.hpp>
#include <memtune/model/store_combining.hpp>
#include <memtune/model/traffic.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/tune/search_loop.hpp>
#include <memtune/description/argument_values.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtune {
namespace {

// The model's view of one candidate whose occupancy is known.
ModelBreakdown analyze(const Evaluation& e, const AccessPattern& pattern, const Target& target,
                       const model::TimeModelParams& params, CacheShare share) {
  const int warps = e.occupancy.warps_per_block;
  const auto blocks = static_cast<double>(pattern.blocks);
  const double traffic_blocks = pattern.global_traffic_blocks > 0 ? pattern.global_traffic_blocks : blocks;
  ModelBreakdown m;
  const model::BankReplay banks =
      model::replay_block(pattern.shared, warps, model::BankConfig::for_target(target, pattern.bank_width_bytes));
  m.smem_wavefronts = banks.total.wavefronts * pattern.blocks;
  m.smem_ideal_wavefronts = banks.total.ideal_wavefronts * pattern.blocks;
  for (const auto& ins : banks.per_instruction) {
    if (ins.worst_ways > m.worst_conflict_ways) {
      m.worst_conflict_ways = ins.worst_ways;
      m.worst_conflict_instruction = ins.name;
    }
  }
  // The caches are shared by every resident warp; shared memory takes its
  // part of a unified L1/shared array first.
  const std::size_t smem_per_sm =
      static_cast<std::size_t>(e.occupancy.blocks_per_sm) *
      (e.resources.static_smem_bytes + e.dynamic_smem_bytes + target.reserved_smem_per_block);
  const bool one_block = share == CacheShare::one_block;
  const GlobalTraffic global = replay_global(
      pattern, warps,
      GlobalCaching::for_target(target, one_block ? warps : e.occupancy.warps_per_sm,
                                one_block ? smem_per_sm / std::max(1, e.occupancy.blocks_per_sm) : smem_per_sm));
  m.global_bytes_requested = global.requested * traffic_blocks;
  m.global_bytes_moved = global.moved * traffic_blocks;
  // Traffic whose L2 reuse depends on the resident blocks: with the real
  // occupancy; for the bounded grid's lower bound, the least DRAM traffic any
  // occupancy up to this one gives (a lower occupancy can shorten a reuse
  // window, so the bound must not take the higher one's).
  const auto traffic_at = [&](int blocks_per_sm) {
    const double resident = std::min(blocks, static_cast<double>(target.sm_count) * blocks_per_sm);
    return model::estimate_traffic(pattern.arrays_by_residency(resident), target.l2_bytes);
  };
  model::Traffic traffic;
  if (!pattern.arrays_by_residency) {
    traffic = model::estimate_traffic(pattern.arrays, target.l2_bytes);
  } else if (share == CacheShare::one_block) {
    traffic = traffic_at(1);
    for (int b = 2; b <= e.occupancy.blocks_per_sm; ++b) {
      model::Traffic t = traffic_at(b);
      if (t.dram_bytes < traffic.dram_bytes) traffic = std::move(t);
    }
  } else {
    traffic = traffic_at(e.occupancy.blocks_per_sm);
  }
  m.dram_bytes = traffic.dram_bytes;

  model::KernelFacts facts;
  facts.dram_bytes = traffic.dram_bytes;
  facts.l2_bytes = (global.l2_load_bytes + global.stores_moved) * traffic_blocks;
  // Loads every block shares (GlobalInstruction::shared_by_blocks): the
  // replay gives each warp its own share of L1, but the SM's L1 keeps them
  // for every later block and warp while all n sets fit beside the loads the
  // resident warps have in flight, so L2 serves each SM its first read of
  // each set. Where they do not fit, the per-warp replay's count stands.
  if (global.l2_load_bytes_shared_by_blocks > 0) {
    // The cache those loads go through, as GlobalCaching::for_target sizes it
    // (the first such instruction's: a template's shared loads take one path).
    const auto shared_load = std::find_if(pattern.global.begin(), pattern.global.end(),
                                          [](const GlobalInstruction& g) { return g.shared_by_blocks > 0; });
    const double smem = static_cast<double>(one_block ? smem_per_sm / std::max(1, e.occupancy.blocks_per_sm) : smem_per_sm);
    const double l1 = std::max(0.0, static_cast<double>(target.l1_bytes) - smem);
    double cache = 0;
    if (shared_load->path == GlobalPath::standard) cache = target.l1_caches_global_loads ? l1 : 0;
    else if (shared_load->path == GlobalPath::read_only)
      cache = target.read_only_cache_bytes > 0 ? static_cast<double>(target.read_only_cache_bytes) : l1;
    const auto resident_warps = static_cast<double>(one_block ? warps : e.occupancy.warps_per_sm);
    const double in_flight = resident_warps * 32.0 * pattern.loads_in_flight_per_thread * pattern.bytes_per_load;
    const auto sets = static_cast<double>(shared_load->shared_by_blocks);
    const double first_reads =
        global.shared_by_blocks_footprint * std::min(blocks, sets * static_cast<double>(target.sm_count));
    const double replayed = global.l2_load_bytes_shared_by_blocks * traffic_blocks;
    if (global.shared_by_blocks_footprint * sets <= cache - in_flight && first_reads < replayed)
      facts.l2_bytes -= replayed - first_reads;
  }
  facts.l2_store_bytes = global.stores_moved * traffic_blocks;
  facts.l2_write_requests = global.write_requests * traffic_blocks;
  facts.smem_wavefronts = static_cast<double>(m.smem_wavefronts) + global.l1_wavefronts * traffic_blocks;
  facts.warp_instructions = pattern.warp_instructions_per_block * blocks;
  // Register spills (ptxas' report): every spilled byte moves once per trip
  // of the kernel's main loop, through the same L1 data path as shared
  // memory. Local memory interleaves threads, so 4 spilled bytes per thread
  // are one 128-byte warp access: one wavefront and one instruction. What
  // the resident warps spill beyond the L1 that shared memory leaves goes on
  // to L2 and back.
  const double spilled = static_cast<double>(e.resources.spill_store_bytes + e.resources.spill_load_bytes);
  if (spilled > 0) {
    const double accesses = spilled / 4 * pattern.main_loop_trips_per_thread * warps * blocks;
    m.local_wavefronts = accesses;
    facts.smem_wavefronts += accesses;
    facts.warp_instructions += accesses;
    const double footprint = static_cast<double>(e.resources.spill_store_bytes) * 32 * e.occupancy.warps_per_sm;
    const double l1_left =
        std::max(0.0, static_cast<double>(target.l1_bytes) - static_cast<double>(smem_per_sm));
    if (footprint > l1_left) facts.l2_bytes += accesses * 128 * (1 - l1_left / footprint);
  }
  facts.fp32_instructions = pattern.fp32_instructions_per_block * blocks;
  facts.bulk_copies = pattern.bulk_copies_per_block * blocks;
  facts.bulk_copy_bytes = pattern.bulk_copy_bytes_per_block * traffic_blocks;
  // Little's law needs the warps that actually run: a grid smaller than the
  // GPU's resident capacity (a mat-vec with one thread per row, 64 blocks on
  // 132 SMs) leaves SMs idle, and its bytes in flight are those of its own
  // threads, not of a full SM's.
  const int sms = std::max(1, target.sm_count);
  const double grid_warps_per_sm = blocks * warps / static_cast<double>(sms);
  facts.warps_per_sm = std::min(static_cast<double>(e.occupancy.warps_per_sm), grid_warps_per_sm);
  facts.loads_in_flight_per_thread = pattern.loads_in_flight_per_thread;
  facts.bytes_per_load = pattern.bytes_per_load;
  facts.blocks = blocks;
  facts.blocks_per_sm = e.occupancy.blocks_per_sm;
  facts.warps_per_block = warps;
  facts.memory_round_trips_per_block = pattern.memory_round_trips_per_block;
  // Overlap units (time_model.hpp): only the blocks an SM actually holds can
  // hide one another's memory waits behind compute. A grid smaller than the
  // resident capacity gives a working SM ceil(blocks / SMs) blocks, whatever
  // the occupancy would allow: the fdtd ring with 128 blocks of 8 warps on
  // 132 SMs (min_warps 16: room for 2) runs 8 warps per SM, not 16 (ncu on the
  // H100: 94.6 M instructions from 8 warps at 4.69 cycles each, 218 us
  // against 189 us for the same tile with 16 warps; docs/model.md, Time).
  // The same rule as warps_per_sm's for Little's law, above.
  //
  // A block with fewer warps than the SM has schedulers runs its SM phase on
  // that many of them only (each warp stays on one), so it takes that much
  // longer and the other blocks hide a smaller share of it: such a block
  // counts as warps / schedulers of a unit. The transpose on an H200 (13
  // shapes, docs/model.md): its best block of one warp (a 32- or 64-wide
  // tile) measured 3.5-26 % behind the best, one of 4-16 warps the best at
  // every shape, and a 32-wide tile's block of one warp 2-24 % behind a
  // 64-wide tile's block of two, whose warps do the same work; counted whole,
  // the blocks of one warp ranked first.
  const double grid_blocks_per_sm = std::max(1.0, std::ceil(blocks / static_cast<double>(sms)));
  const int held_blocks = static_cast<int>(std::min<double>(e.occupancy.blocks_per_sm, grid_blocks_per_sm));
  const double schedulers_covered =
      std::min(1.0, e.occupancy.warps_per_block / static_cast<double>(std::max(1, target.schedulers_per_sm)));
  m.overlap_units_per_sm =
      pattern.barrier_between_load_and_compute
          ? std::max(1, static_cast<int>(std::lround(held_blocks * schedulers_covered)))
          : held_blocks * e.occupancy.warps_per_block;
  facts.blocks_held_per_sm = held_blocks;
  facts.overlap_units_per_sm = m.overlap_units_per_sm;
  facts.instructions_per_warp = pattern.warp_instructions_per_block / std::max(1, warps);
  m.l2_bytes = facts.l2_bytes;
  m.time = model::predict_time(target, facts, params);
  return m;
}

} // namespace

void predict_occupancy(Evaluation& e, const Target& target) {
  e.occupancy = model::compute_occupancy(target, {e.block_threads, e.resources.registers, e.resources.static_smem_bytes,
                                                  e.dynamic_smem_bytes});
  if (e.occupancy.blocks_per_sm == 0) {
    e.status = Status::exceeds_device_limits;
    e.reason = e.occupancy.cannot_launch.empty() ? "no block fits on an SM" : e.occupancy.cannot_launch;
  }
}

void predict_candidate(Evaluation& e, const KernelDescription& kernel, const Problem& problem, const Target& target,
                       std::uint64_t bytes_moved, const model::TimeModelParams& params, CacheShare share) {
  if (!kernel.has_model()) throw std::logic_error(kernel.name + " has no access pattern: its time cannot be modeled");
  const AccessPattern pattern = kernel.access_pattern(e.config, problem, target);
  e.block_threads = pattern.block_threads;
  e.occupancy = model::compute_occupancy(target, {pattern.block_threads, e.resources.registers,
                                                  e.resources.static_smem_bytes, e.dynamic_smem_bytes});
  if (e.occupancy.blocks_per_sm == 0) {
    e.status = Status::exceeds_device_limits;
    e.reason = e.occupancy.cannot_launch.empty() ? "no block fits on an SM" : e.occupancy.cannot_launch;
    return;
  }
  ModelBreakdown m = analyze(e, pattern, target, params, share);
  Timing t;
  t.median_s = t.min_s = t.max_s = m.time.seconds;
  t.cold = true;
  e.timing = t;
  e.gbps = static_cast<double>(bytes_moved) / m.time.seconds / 1e9;
  e.fraction_of_peak = target.dram_bandwidth_gbs > 0 ? e.gbps / target.dram_bandwidth_gbs : 0.0;
  e.model = std::move(m);
}

Evaluation predict_with_resources(const KernelDescription& kernel, const Problem& problem, const Target& target,
                                  const search::Config& config, const KernelResources& resources,
                                  std::uint64_t bytes_moved, const model::TimeModelParams& params, CacheShare share) {
  Evaluation e;
  e.config = config;
  LaunchSpec launch;
  try {
    launch = kernel.launch(config, problem, target);
  } catch (const std::invalid_argument& err) {
    e.status = Status::launch_failed;
    e.reason = err.what();
    return e;
  }
  if (auto why = description_detail::block_limit_violation(launch.block)) {
    e.status = Status::exceeds_device_limits;
    e.reason = *why;
    return e;
  }
  e.block_threads = static_cast<int>(launch.block.count());
  e.grid_blocks = launch.grid.count();
  e.dynamic_smem_bytes = launch.dynamic_smem_bytes;
  e.resources = resources;
  if (auto why = cooperative_grid_violation(launch, e, target)) { // a grid.sync() kernel at a size its grid outgrows
    e.status = Status::exceeds_device_limits;
    e.reason = *why;
    return e;
  }
  predict_candidate(e, kernel, problem, target, bytes_moved, params, share);
  return e;
}

void explain_measured_candidate(Evaluation& e, const KernelDescription& kernel, const Problem& problem,
                                const Target& target, const model::TimeModelParams& params) {
  if (e.occupancy.blocks_per_sm == 0 || !kernel.has_model()) return;
  e.model = analyze(e, kernel.access_pattern(e.config, problem, target), target, params,
                    CacheShare::resident_warps);
  e.model->compiled_for_cc = target.compute_capability();
}

} // namespace memtune
