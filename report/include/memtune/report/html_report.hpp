#pragma once
// `memtune report`: one self-contained HTML file (inline SVG, CSS and a few
// lines of script for sorting tables; no request to any server) that shows
// each space read from the inputs: header, heat map, per-axis effects,
// search trajectory, model against measurement, GB/s against the copy
// ceiling and the peak, failures, and the ranked table.
#include <memtune/report/inputs.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace memtune::report {

struct ReportOptions {
  std::vector<std::string> heatmap_axes; // two axis names; empty: the two that matter most
  std::size_t table_rows = 1000;         // rows of each ranked table (the fastest)
  std::size_t bandwidth_rows = 10;       // configurations in the GB/s chart
};

// Throws std::invalid_argument for options that do not fit the inputs (an
// unknown --axes name) and when there is nothing to show.
[[nodiscard]] std::string render_html(const Inputs& inputs, const ReportOptions& options);

// A report is written through the output-file policy:
// io::write_file_atomically(file, html, io::OutputKind::html_report).

} // namespace memtune::report
