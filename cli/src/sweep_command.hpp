#pragma once
// `memtune sweep <template> --over n=64K:256M [--points 8]` and
// `memtune sweep --spec k.json --over rows=1K:64K,cols=1K:64K`: one tuning
// run per problem size (sweep_over.hpp), each a normal run of the one tuning
// loop with every tuning option (measured or --target, --journal, --resume,
// --shard, --record, --save: files per size), bayes starting each size from
// the nearest size done (TuneOptions::warm_start), and a report of the best
// configuration per size and where it changes.
#include "kernel_command.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::cli {

struct SweepCommand {
  CLI::App* app = nullptr;
  std::string kernel;             // a built-in template's name
  std::string spec;               // or a kernel description file
  std::vector<std::string> over;  // NAME=LO:HI or NAME=V1,V2,...
  std::size_t points = 8;
  std::vector<std::string> sets;  // NAME=VALUE, the problem's other variables
  std::size_t refine = 0;         // sizes added where neighbours disagree (sweep_refinement.hpp)
  CommonOptions options;
};

std::unique_ptr<SweepCommand> add_sweep_command(CLI::App& app);
// Returns the exit code: the worst of the sizes'.
int run_sweep_command(const SweepCommand& command, std::ostream& out, std::ostream& err);

// A sweep point's file: "run.json" -> "run.n65536.json" (before the
// extension; "" stays ""), so each size keeps its own recording, report
// and journal, and a resumed sweep finds each size's.
[[nodiscard]] std::string path_for_point(const std::string& file, const std::map<std::string, std::int64_t>& point);

} // namespace memtune::cli
