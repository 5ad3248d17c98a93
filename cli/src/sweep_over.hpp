#pragma once
// `memtune sweep --over`: the problem sizes a sweep visits.
//
//   n=64K:256M            a range: --points sizes spaced evenly on a log
//                         scale, both ends included (64K, 256K, ..., 256M
//                         for 7 points; odd sizes in between are kept as
//                         they fall, 1M .. 16M by 8 points gives 1048576,
//                         1558178, ...)
//   n=1000003,4M,16M      a list: exactly these sizes, in this order
//   rows=1K:64K,cols=1K:64K  several variables move together: point i takes
//                         each one's i-th value (lists must then be as long
//                         as each other; a single value is held at every point)
//
// Sizes take K, M, G (binary: 64K = 65536), as the tuning commands' do.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memtune::cli {

struct SweepVariable {
  std::string name;                 // a problem variable: "n"
  std::vector<std::int64_t> values; // in the order visited
  bool range = false;               // from LO:HI (log-spaced), not a list
};

// `points` evenly spaced on a log scale from `lo` to `hi` (both included),
// rounded to integers, duplicates dropped (a narrow range of small sizes).
// Precondition: 1 <= lo <= hi, points >= 1 (1 point: lo).
[[nodiscard]] std::vector<std::int64_t> log_spaced(std::int64_t lo, std::int64_t hi, std::size_t points);

// Parses --over's text ("n=64K:256M", "n=1000003,4M,16M",
// "rows=1K:64K,cols=1K:64K"; CLI11's delimiter may have split it into
// several items). Throws ArgumentError("--over ...") naming the item and why:
// no NAME=, an empty or unreadable size, LO above HI, zero, a variable twice.
[[nodiscard]] std::vector<SweepVariable> parse_over(const std::vector<std::string>& items, std::size_t points);

// The problems visited: point i's value of each variable. Throws
// ArgumentError("--over") when lists differ in length.
[[nodiscard]] std::vector<std::map<std::string, std::int64_t>> sweep_points(const std::vector<SweepVariable>& over);

} // namespace memtune::cli
