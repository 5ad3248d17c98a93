#pragma once
// What a tuning run searches and how: the strategy, its budget and stop
// rules, the part of the space (--only, --shard) and the search's prior.
// Part of TuneOptions (tuner.hpp); the journal records it.
#include <memtune/search/shard.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

struct TransferSource; // transfer.hpp

struct SearchOptions {
  std::string strategy = "grid";   // "grid" | "random" | "bayes" (search::make_strategy)
  // Measured runs with "bayes": the analytical model's prediction (no
  // compile, model_prior.hpp) is the search's prior mean, for descriptions
  // with a model (an access pattern). False: plain bayes.
  bool model_prior = true;
  std::size_t budget = 0;          // max candidates evaluated; 0 = no limit
  double time_budget_s = 0.0;      // [seconds] stop after this much wall time; 0 = no limit
  std::size_t patience = 0;        // stop after this many evaluations without a new best; 0 = never
  std::uint64_t seed = 1;          // data and strategy randomness
  // Axes fixed to one value each ({"block_size", "256"}, labels allowed for
  // categorical axes): the search runs on the rest, e.g. to measure exactly
  // one configuration under Nsight Compute. Unknown axes or values are
  // std::invalid_argument.
  std::map<std::string, std::string> only;
  // Run only this part of the space (search/shard.hpp): N jobs with shards
  // 1/N .. N/N tune disjoint parts that together are the whole space.
  // shard_source says where it came from, for the result's header.
  std::optional<search::Shard> shard;
  std::string shard_source;
  // Modeled grid runs: compile (for registers) only the candidates that can
  // still reach the top `exact_top` by the model's lower bound; the others
  // are counted, not predicted. 0: compile and predict every candidate (what
  // a recording needs).
  std::size_t exact_top = 10;
  // Modeled runs: predict the target from this measured recording or profile
  // store of another GPU, each configuration's time scaled by the model's
  // ratio between the two GPUs (transfer.hpp). Measured bayes runs: the same
  // transferred prediction for the local GPU is the search's prior mean.
  std::optional<std::filesystem::path> transfer_from;
  // Bayes runs, measured or modeled: the search's prior mean is this run of
  // another problem size carried to this one, each configuration's time
  // scaled by the model's ratio between the two sizes (transfer_prior with
  // TransferSource::problem set; sweep_source makes one from a result). How
  // `memtune sweep` starts each size from the sizes done before. Takes the
  // place of the model prior; not with transfer_from.
  std::shared_ptr<const TransferSource> warm_start;
  // Bayes runs: configurations (as saved: Space::config_to_json) measured
  // before the strategy's own proposals, where this run's space holds them or
  // the same kernel's configuration (search::Space::same_kernel;
  // search/first_then.hpp). `memtune sweep` gives each size the bests of its
  // nearest sizes done, so that the profile's per-call rule knows how they
  // hold here.
  std::vector<nlohmann::json> first;
};

} // namespace memtune
