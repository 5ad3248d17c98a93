#pragma once
// What every tuning command shares, whatever the kernel: the options
// (strategy, budgets, target, output, cache), reading the problem from text,
// and the run itself (tune or predict, print, record, save). The built-in
// templates' commands and `memtune tune --spec` are both made of these.
#include <memtune/description/kernel_description.hpp>

#include "survival_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::cli {

struct CommonOptions {
  std::string strategy = "grid";
  std::size_t budget = 0;
  std::size_t patience = 0;
  double time_budget = 0.0;
  std::uint64_t seed = 1;
  int device = 0;
  bool warm = false;
  bool json = false;
  std::string save;
  std::string record;
  std::size_t top = 10;
  std::string cache_dir;
  std::string target = "local";
  bool no_cache = false;
  bool no_model_prior = false;
  bool quiet = false;
  std::vector<std::string> compare;
  std::vector<std::string> only; // "axis=value"
  SurvivalOptions survival;       // isolation, watchdog, journal
};

// Adds the shared options to a tuning command; `baselines` are the names
// --compare knows (empty: none).
void add_tuning_options(CLI::App& command, CommonOptions& o, const std::vector<std::string>& baselines);

// The problem from text by variable name ("16M", or a label of a choice),
// completed with defaults and checked. Writes the error and returns nullopt
// on bad text (`what` names the option: "--n", "--set n").
std::optional<Problem> parse_problem(const KernelDescription& kernel, const std::map<std::string, std::string>& text,
                                     const std::string& what_prefix, std::ostream& err);

// Tunes on the local GPU or predicts for --target, prints the table (or
// JSON), writes --record and --save. Returns the exit code.
int run_kernel(const KernelDescription& kernel, const Problem& problem, const CommonOptions& o, std::ostream& out,
               std::ostream& err);

} // namespace memtune::cli
