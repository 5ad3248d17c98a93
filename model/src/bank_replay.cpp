#include <memtune/model/bank_replay.hpp>

#include <memtune/model/iteration_sample.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtune::model {

BankReplay replay_block(const std::vector<SharedInstruction>& instructions, int warps_per_block,
                        const BankConfig& config) {
  if (warps_per_block <= 0) throw std::invalid_argument("bank replay: warps_per_block must be > 0");
  BankReplay out;
  out.total.name = "total";
  for (const auto& ins : instructions) {
    if (!ins.address) throw std::invalid_argument("bank replay: instruction '" + ins.name + "' has no address function");
    if (ins.iterations < 0 || ins.repeat < 0)
      throw std::invalid_argument("bank replay: instruction '" + ins.name + "' has negative iterations or repeat");
    InstructionTotals t;
    t.name = ins.name;
    // Long loops are sampled (iteration_sample.hpp): each replayed iteration
    // stands for `weight` of them.
    const IterationSample sample = sample_iterations(ins.repeat > 0 ? ins.iterations : 0);
    double executions = 0, wavefronts = 0, ideal = 0;
    for (int warp = 0; warp < warps_per_block; ++warp) {
      for (const IterationRun& run : sample.runs)
        for (std::int64_t it = run.first; it < run.first + run.count; ++it) {
          const WarpAccess a = WarpAccess::from_function([&](int lane) { return ins.address(warp, lane, it); },
                                                         ins.width_bytes, ins.kind);
          if (a.active_lanes() == 0) continue; // the warp skips the instruction
          const BankResult r = simulate_banks(a, config);
          executions += 1;
          wavefronts += static_cast<double>(r.wavefronts);
          ideal += static_cast<double>(r.ideal_wavefronts);
          t.worst_ways = std::max(t.worst_ways, r.ways);
        }
    }
    const double scale = sample.weight * static_cast<double>(ins.repeat);
    t.executions = std::llround(executions * scale);
    t.wavefronts = std::llround(wavefronts * scale);
    t.ideal_wavefronts = std::llround(ideal * scale);
    out.total.executions += t.executions;
    out.total.wavefronts += t.wavefronts;
    out.total.ideal_wavefronts += t.ideal_wavefronts;
    out.total.worst_ways = std::max(out.total.worst_ways, t.worst_ways);
    out.per_instruction.push_back(std::move(t));
  }
  return out;
}

} // namespace memtune::model
