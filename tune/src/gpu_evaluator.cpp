#include "gpu_evaluator.hpp"

namespace memtune {

GpuEvaluator::GpuEvaluator(const KernelDescription& kernel, const Target& target, const TuneOptions& options,
                           const TuningResult& result, WatchdogYardsticks& yardsticks,
                           isolation::CandidateExecutor& gpu,
                           std::function<void(const isolation::CopyMeasurements&)> on_copies)
    : kernel_(kernel), target_(target), options_(options), result_(result), yardsticks_(yardsticks), gpu_(gpu),
      on_copies_(std::move(on_copies)) {}

std::optional<Evaluation> GpuEvaluator::start(Pending& p) {
  Evaluation e;
  const std::optional<CompileResult> compiled = take_compiled(p, target_, e);
  if (!compiled) return e;
  check_signature(kernel_, *compiled);
  // Per candidate, whatever the number of GPUs: the limit of the best known so far.
  const double limit = options_.isolation.candidate_timeout_s > 0 ? options_.isolation.candidate_timeout_s
                                                                  : candidate_time_limit(yardsticks_, options_.measure);
  const std::uint64_t tag = next_tag_++;
  gpu_.submit({p.config, p.launch, compiled->lowered_name, compiled->cubin}, limit, tag);
  if (!first_sent_) first_sent_ = std::chrono::steady_clock::now();
  in_flight_.emplace(tag, std::move(e));
  return std::nullopt;
}

Evaluation GpuEvaluator::finish() {
  const std::optional<isolation::CandidateDone> done = gpu_.collect();
  if (!done) throw std::logic_error("GpuEvaluator::finish with nothing in flight");
  if (auto copies = gpu_.take_copies()) on_copies_(*copies);
  auto node = in_flight_.extract(done->tag);
  Evaluation e = std::move(node.mapped());
  isolation::merge_outcome(e, done->run.outcome, target_, result_.bytes_moved,
                           result_.ceiling ? result_.ceiling->gbps : 0.0);
  e.device = done->run.device;
  if (e.ok() && (!yardsticks_.best_s || e.timing->median_s < *yardsticks_.best_s)) yardsticks_.best_s = e.timing->median_s;
  return e;
}

} // namespace memtune
