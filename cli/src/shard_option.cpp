#include "shard_option.hpp"

#include <memtune/tune/tuner.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace memtune::cli {
namespace {

std::optional<std::uint64_t> number(const Environment& env, const char* name) {
  const char* text = env(name);
  if (!text || !*text) return std::nullopt;
  std::uint64_t v = 0;
  const char* end = text + std::char_traits<char>::length(text);
  const auto [last, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || last != end)
    throw std::invalid_argument(std::string("$") + name + "='" + text + "' is not a whole number");
  return v;
}

} // namespace

void add_shard_option(CLI::App& command, std::string& text) {
  command.add_option("--shard", text,
                     "run part I of N of the space, I/N counting from 1 (disjoint parts whose union is the space); "
                     "default: from a Slurm job array's SLURM_ARRAY_TASK_* variables, else the whole space")
      ->check(CLI::Validator([](std::string& s) { return s.empty() ? std::string("'' is not I/N (e.g. 2/8)") : std::string(); },
                             "I/N", "shard"));
}

std::optional<ShardChoice> resolve_shard(const std::string& flag, const Environment& env) {
  if (!flag.empty()) {
    try {
      return ShardChoice{search::Shard::parse(flag), "--shard " + flag};
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--shard: ") + e.what());
    }
  }
  const auto id = number(env, "SLURM_ARRAY_TASK_ID");
  if (!id) return std::nullopt;
  const auto min = number(env, "SLURM_ARRAY_TASK_MIN");
  const auto max = number(env, "SLURM_ARRAY_TASK_MAX");
  const auto count = number(env, "SLURM_ARRAY_TASK_COUNT");
  const std::uint64_t step = number(env, "SLURM_ARRAY_TASK_STEP").value_or(1);
  const std::string seen = "SLURM_ARRAY_TASK_ID=" + std::to_string(*id);
  if (!min || (!max && !count))
    throw std::invalid_argument(seen + " is set without SLURM_ARRAY_TASK_MIN and _MAX or _COUNT: pass --shard I/N");
  if (step == 0) throw std::invalid_argument("$SLURM_ARRAY_TASK_STEP is 0: pass --shard I/N");
  if (*id < *min || (max && *id > *max) || (*id - *min) % step != 0)
    throw std::invalid_argument(seen + " is not one of the array's tasks (" + std::to_string(*min) + " to " +
                                (max ? std::to_string(*max) : "?") + " in steps of " + std::to_string(step) +
                                "): pass --shard I/N");
  const std::uint64_t spaced = max ? (*max - *min) / step + 1 : *count;
  if (count && *count != spaced)
    throw std::invalid_argument("the job array's " + std::to_string(*count) + " task ids are not evenly spaced from " +
                                std::to_string(*min) + " to " + std::to_string(max.value_or(0)) +
                                " (e.g. --array=1,3,8): pass --shard I/N to each task");
  const std::uint64_t index = (*id - *min) / step + 1;
  try {
    const search::Shard shard = search::Shard::of(index, spaced);
    return ShardChoice{shard, "from the Slurm job array: " + seen + " of tasks " + std::to_string(*min) + "-" +
                                  std::to_string(*min + (spaced - 1) * step) +
                                  (step > 1 ? ":" + std::to_string(step) : "")};
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(seen + ": " + e.what());
  }
}

void apply_shard(TuneOptions& options, const std::string& flag, bool saves_profile) {
  const auto choice = resolve_shard(flag, [](const char* name) { return std::getenv(name); });
  if (!choice || choice->shard.whole()) return;
  if (saves_profile)
    throw std::invalid_argument("shard " + choice->shard.to_string() + " (" + choice->source +
                                "): --save would store one part's best as the best; record each shard with --record "
                                "and save from `memtune merge` (or pass --shard 1/1 to tune the whole space)");
  options.shard = choice->shard;
  options.shard_source = choice->source;
}

} // namespace memtune::cli
