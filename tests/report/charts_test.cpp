#include <memtune/report/charts.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace memtune::report;

TEST_CASE("charts: GB/s bars a few % apart start near the shortest, and the axis says where") {
  const std::vector<charts::Bar> close{{"#1", "", 3062}, {"#2", "", 3040}, {"#3", "", 3034}};
  const std::vector<charts::Reference> refs{{"copy ceiling", 3107, "#e15759"}, {"peak", 3352, "#59a14f"}};
  const std::string zoomed = charts::bars(close, refs, "GB/s", "GB/s", true);
  CHECK(zoomed.find("the axis starts at ") != std::string::npos);
  CHECK(zoomed.find(", not at 0") != std::string::npos);
  CHECK(zoomed.find(">0</text>") == std::string::npos); // no tick at 0
  // Asked not to (counts of failures), or bars far apart: from 0.
  CHECK(charts::bars(close, refs, "GB/s", "GB/s", false).find("the axis starts at") == std::string::npos);
  const std::vector<charts::Bar> apart{{"#1", "", 3000}, {"#2", "", 400}};
  const std::string from_zero = charts::bars(apart, refs, "GB/s", "GB/s", true);
  CHECK(from_zero.find("the axis starts at") == std::string::npos);
  CHECK(from_zero.find(">0</text>") != std::string::npos);
}

TEST_CASE("charts: a long configuration label is cut to its room and shown whole on hover") {
  std::string label = "#1";
  for (int i = 0; i < 20; ++i) label += " axis_number_" + std::to_string(i) + "=1024";
  const std::string svg = charts::bars({{label, "tip", 100.0}}, {}, "GB/s", "GB/s");
  CHECK(svg.find(">" + label + "</text>") == std::string::npos);    // not drawn whole (it would run off the left)
  CHECK(svg.find("<title>" + label + "</title>") != std::string::npos); // but whole on hover
  CHECK(svg.find("\u2026") != std::string::npos);
}
