#pragma once
// --shard I/N: run one of N disjoint parts of the space (search/shard.hpp),
// given on the command line or, with no flag, read from a Slurm job array.
#include <memtune/search/shard.hpp>

#include <functional>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace memtune {
struct TuneOptions;
}

namespace memtune::cli {

// Where the shard came from, for the table's header ("--shard 2/4", or the
// Slurm variables it was read from).
struct ShardChoice {
  search::Shard shard;
  std::string source;
};

using Environment = std::function<const char*(const char*)>; // getenv

// Adds --shard to a tuning subcommand, writing the text to `text`.
void add_shard_option(CLI::App& command, std::string& text);

// The shard to run: `flag` when given ("2/4"; "1/1" runs the whole space even
// inside a job array), else the Slurm job array's task (SLURM_ARRAY_TASK_ID
// counted from SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP, of
// SLURM_ARRAY_TASK_COUNT or (MAX - MIN) / STEP + 1 tasks), else none.
// Throws std::invalid_argument saying which flag or variable is wrong, e.g.
// an array whose task ids are not evenly spaced (--array=1,3,8).
[[nodiscard]] std::optional<ShardChoice> resolve_shard(const std::string& flag, const Environment& environment);

// Resolves the shard (from the process environment) into the options.
// A run that saves a profile is refused with a shard: a part's best is not
// the best (record each shard, then save from `memtune merge`).
void apply_shard(TuneOptions& options, const std::string& flag, bool saves_profile);

} // namespace memtune::cli
