#pragma once
// A modeled grid run that compiles only the candidates that can still reach
// the top k. Compiling for registers is what a modeled run spends its time
// on (~0.1 s of NVRTC per candidate); the model itself takes ~2 ms.
//
// The bound: a candidate predicted with no register limit (registers = 0,
// no static shared memory) gets at least the occupancy it will have once
// NVRTC reports its registers, and the model's time never rises with
// occupancy (more warps and blocks per SM keep more bytes in flight and
// overlap more round trips; tests/tune/bounded_grid_test.cpp checks it).
// So that prediction is a lower bound on the final one. Candidates are
// compiled in order of their bound; once k candidates are predicted and the
// next bound is no better than the k-th best, no remaining candidate can
// enter the top k.
//
// The candidates run through the one candidate loop (run_search_loop) with
// the BoundOrder strategy (bound_order.hpp), which proposes them in that
// order, checks the bound on every prediction it observes and, if the model
// ever predicts a compiled candidate faster than its bound, stops trusting
// the bound and proposes every candidate.
#include "bound_order.hpp"

#include <memtune/tune/search_loop.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace memtune {

// The model's prediction for `config` with no register limit: a lower bound
// on its prediction with real registers. Its status is exceeds_device_limits
// when no block fits on the target even so (shared memory, threads).
//
// Three parts of the model are taken at their most optimistic, because they
// do not fall monotonically with occupancy: each warp's cache share is one
// block's (CacheShare::one_block), the latency of a dependent round trip
// is the unloaded one (loaded_latency_gain 0: the loaded latency grows with
// the DRAM utilisation, which a higher occupancy can raise), and a part-filled
// last wave costs its fraction of a block's life (whole_waves off: more blocks
// per SM can round 1.9 waves up to 2 of longer lives where fewer gave 3 short ones).
// The knee where bounds meet is left out (knee_exponent 0): the max of the
// bounds is never above their p-norm.
// A configuration that cannot be launched (a zero grid) gets launch_failed.
Evaluation model_lower_bound(const KernelDescription& kernel, const Problem& problem, const Target& target,
                             const search::Config& config, std::uint64_t bytes_moved);

// predict(c) for every config, on all cores, in the configs' order: a
// description's model interprets its expressions for every thread of a
// block, milliseconds a configuration, minutes for a space of 10^5 on one core.
std::vector<Evaluation> predict_each(const std::vector<search::Config>& configs,
                                     const std::function<Evaluation(const search::Config&)>& predict);

// The same configuration without registers (nothing compiled), predicted with
// the model's own parameters: an estimate, not a bound (model_prior.hpp).
Evaluation model_estimate(const KernelDescription& kernel, const Problem& problem, const Target& target,
                          const search::Config& config, std::uint64_t bytes_moved);

// Fills result.evaluations (first the configurations no block fits even
// without registers, never compiled; then the compiled ones as they end),
// compile_cache_hits, exact_top, configs_not_compiled and bound_violated.
// Needs options.exact_top > 0.
void run_bounded_grid(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                      const TuneOptions& options, CompilePool& pool, TuningResult& result,
                      const std::function<Evaluation(Pending&)>& evaluate);

} // namespace memtune
