#pragma once
// Internal to the HTML report: the small pieces that html_report.cpp (the
// page, a section per space) and run_section.cpp (a section per run) share.
#include <memtune/report/html_report.hpp>
#include <memtune/report/inputs.hpp>
#include <memtune/report/svg.hpp>

#include <filesystem>
#include <string>

namespace memtune::report::html_detail {

inline std::string basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

inline std::string figure(const std::string& title, const std::string& svg_markup, const std::string& caption = {}) {
  return "<figure><figcaption><b>" + svg::escape(title) + "</b>" + (caption.empty() ? "" : " " + svg::escape(caption)) +
         "</figcaption>" + svg_markup + "</figure>";
}

// One run's section: its heatmap, axis effects, bandwidth, energy, failures
// and ranked configurations (run_section.cpp); `id` is its anchor.
std::string run_section(const Run& r, const ReportOptions& o, const std::string& id);

} // namespace memtune::report::html_detail
