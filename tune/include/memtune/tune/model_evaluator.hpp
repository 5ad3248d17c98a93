#pragma once
// Predicts one candidate on a target from its access pattern: occupancy from
// cuda_occupancy.h, shared-memory wavefronts from the bank simulator, sectors
// per global request, DRAM/L2 traffic, and the time model's bounds (see
// docs/model.md). No GPU needed.
#include <memtune/compile/compile_request.hpp>
#include <memtune/measure/evaluation.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/model/time_model.hpp>

namespace memtune {

// Fills e.occupancy, e.model, e.timing (the prediction), e.gbps and
// e.fraction_of_peak from the candidate's compiled resources; sets status
// exceeds_device_limits when no block fits. `bytes_moved` is the kernel's
// minimum for the problem. The description must have a model
// (KernelDescription::has_model).
//
// A warp's share of L1 (or of Kepler's read-only cache) is the cache over the
// resident warps; CacheShare::one_block divides it among one block's warps
// only, the largest share any occupancy gives: the bounded grid's lower
// bound (bounded_grid.hpp) uses it, so that a higher occupancy, which only
// shrinks the share, can never make the bound slower than the prediction.
enum class CacheShare { resident_warps, one_block };
void predict_candidate(Evaluation& e, const KernelDescription& kernel, const Problem& problem, const Target& target,
                       std::uint64_t bytes_moved, const model::TimeModelParams& params = {},
                       CacheShare share = CacheShare::resident_warps);

// One configuration predicted from compiled resources already known (a
// profile entry keeps each kept configuration's registers and shared memory),
// so nothing is compiled: what a launcher's lookup can afford. The launch
// comes from the description at `problem`; status launch_failed or
// exceeds_device_limits when it cannot run there. Zero resources (none
// known) give the most blocks per SM the block can get.
[[nodiscard]] Evaluation predict_with_resources(const KernelDescription& kernel, const Problem& problem,
                                                const Target& target, const search::Config& config,
                                                const KernelResources& resources, std::uint64_t bytes_moved,
                                                const model::TimeModelParams& params = {},
                                                CacheShare share = CacheShare::resident_warps);

// A kernel without a model: e.occupancy (cuda_occupancy.h with the target's
// limits and the candidate's real registers) and its limiter only, no time;
// status exceeds_device_limits when no block fits.
void predict_occupancy(Evaluation& e, const Target& target);

// The model's facts (conflict ways, sector efficiency, traffic, bounds) for a
// measured candidate, for its rationale; timing and occupancy stay as measured.
void explain_measured_candidate(Evaluation& e, const KernelDescription& kernel, const Problem& problem,
                                const Target& target, const model::TimeModelParams& params = {});

} // namespace memtune
