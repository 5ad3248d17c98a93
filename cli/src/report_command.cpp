#include "report_command.hpp"

#include "app.hpp"
#include "option_checks.hpp"

#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/report/html_report.hpp>

#include <nlohmann/json.hpp>

namespace memtune::cli {

struct ReportCommand {
  CLI::App* app = nullptr;
  std::vector<std::string> inputs;
  std::string output;
  std::string axes; // "X,Y"
  std::size_t rows = 1000;
};

std::shared_ptr<ReportCommand> add_report_command(CLI::App& app) {
  auto cmd = std::make_shared<ReportCommand>();
  CLI::App* sub = app.add_subcommand(
      "report", "write one self-contained HTML report (heat map, axis effects, search trajectory, model vs measurement, "
                "GB/s, failures, ranked table) from runs' --json, --record recordings, search-benchmark --json results "
                "and probed target files");
  cmd->app = sub;
  sub->add_option("inputs", cmd->inputs, "input files (JSON)")->required()->check(CLI::ExistingFile);
  sub->add_option("-o,--output", cmd->output, "the HTML file to write")->required();
  // One text split here, not CLI11's delimiter: it drops empty items, and
  // "--axes ," then takes the next argument as its value.
  sub->add_option("--axes", cmd->axes, "the heat map's two axes, X,Y (default: the two that matter most)");
  sub->add_option("--rows", cmd->rows, "rows of each ranked table (the fastest)")
      ->capture_default_str()
      ->check(whole_number());
  return cmd;
}

bool report_command_parsed(const ReportCommand& cmd) { return cmd.app && cmd.app->parsed(); }

int run_report_command(const ReportCommand& c, std::ostream& out, std::ostream& err) {
  // -o is never one of the inputs (nor a store, a recording, a device): checked before reading them.
  check_outputs({{"-o", c.output, io::OutputKind::html_report}});
  report::Inputs inputs;
  try {
    for (const auto& path : c.inputs) report::load_input(path, inputs);
  } catch (const std::runtime_error& e) {
    err << "memtune report: " << e.what() << "\n";
    return kExitError;
  }
  report::complete_from_catalogues(inputs);
  report::ReportOptions options;
  if (!c.axes.empty()) {
    const auto comma = c.axes.find(',');
    const std::string x = c.axes.substr(0, comma), y = comma == std::string::npos ? "" : c.axes.substr(comma + 1);
    if (x.empty() || y.empty() || y.find(',') != std::string::npos)
      throw ArgumentError("--axes " + c.axes, "takes two axis names, X,Y");
    options.heatmap_axes = {x, y};
  }
  options.table_rows = c.rows;
  std::string html;
  try {
    html = report::render_html(inputs, options);
  } catch (const std::invalid_argument& e) {
    err << "memtune report: " << e.what() << "\n";
    return kExitUsage;
  }
  io::write_file_atomically(c.output, html, io::OutputKind::html_report);
  const auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  out << "wrote " << c.output << " (" << count(inputs.runs.size(), "run", "runs") << ", "
      << count(inputs.curves.size(), "benchmark curve", "benchmark curves") << "; " << html.size() / 1024
      << " KiB, self-contained)\n";
  return kExitOk;
}

void write_run_report(const TuningResult& result, const std::string& path) {
  report::Inputs inputs;
  inputs.runs.push_back(report::run_from_json(to_json(result, 0), ""));
  report::complete_from_catalogues(inputs);
  io::write_file_atomically(path, report::render_html(inputs, {}), io::OutputKind::html_report);
}

} // namespace memtune::cli
