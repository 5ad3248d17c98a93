#pragma once
// `memtune report INPUT... -o FILE`: the HTML report (report/html_report.hpp)
// of runs, recordings and search-benchmark results; and the --report option
// of the tuning commands, which writes the same report at the end of a run.
#include <memtune/output/tuning_result.hpp>

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>

namespace memtune::cli {

struct ReportCommand; // the subcommand and its options (report_command.cpp)

std::shared_ptr<ReportCommand> add_report_command(CLI::App& app);
bool report_command_parsed(const ReportCommand& cmd);
int run_report_command(const ReportCommand& cmd, std::ostream& out, std::ostream& err);

// Writes the report of one tuning run to `path` (--report FILE).
void write_run_report(const TuningResult& result, const std::string& path);

} // namespace memtune::cli
