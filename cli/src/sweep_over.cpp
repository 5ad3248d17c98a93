#include "sweep_over.hpp"

#include "size_parse.hpp"

#include <memtune/io/errors.hpp>

#include <algorithm>
#include <cmath>

namespace memtune::cli {
namespace {

std::int64_t size_of(const std::string& text, const std::string& item) {
  const auto v = parse_size(text);
  if (!v) throw ArgumentError("--over " + item, "'" + text + "' is not a size (digits with an optional K, M or G)");
  if (*v < 1) throw ArgumentError("--over " + item, "sizes start at 1, got " + text);
  return *v;
}

} // namespace

std::vector<std::int64_t> log_spaced(std::int64_t lo, std::int64_t hi, std::size_t points) {
  std::vector<std::int64_t> out;
  if (points <= 1 || lo == hi) return {lo};
  const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi));
  for (std::size_t i = 0; i < points; ++i) {
    // The ends exactly: no rounding drift on the sizes the user typed.
    const std::int64_t v = i == 0 ? lo
                           : i + 1 == points
                               ? hi
                               : static_cast<std::int64_t>(std::llround(std::exp(a + (b - a) * static_cast<double>(i) /
                                                                                       static_cast<double>(points - 1))));
    if (out.empty() || out.back() != v) out.push_back(v);
  }
  return out;
}

std::vector<SweepVariable> parse_over(const std::vector<std::string>& items, std::size_t points) {
  // CLI11 may or may not have split on commas: join, then split, so a value
  // without NAME= continues the list of the variable before it.
  std::vector<std::string> parts;
  for (const std::string& item : items) {
    std::size_t start = 0;
    while (true) {
      const auto comma = item.find(',', start);
      parts.push_back(item.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (parts.empty()) throw ArgumentError("--over", "needs NAME=LO:HI or NAME=V1,V2,... (e.g. n=64K:256M)");
  std::vector<SweepVariable> out;
  for (const std::string& part : parts) {
    // An empty piece between commas: size_of would name it "--over " plus
    // the empty piece, which says nothing. (An empty value after NAME= is
    // size_of's to name: "--over n=: '' is not a size".)
    if (part.empty()) {
      if (out.empty()) throw ArgumentError("--over", "starts with a comma: write NAME=V1,V2,...");
      throw ArgumentError("--over " + out.back().name,
                          "has an empty item in its list (two commas in a row, or one at the end)");
    }
    const auto eq = part.find('=');
    std::string values = part;
    if (eq != std::string::npos) {
      const std::string name = part.substr(0, eq);
      if (name.empty()) throw ArgumentError("--over " + part, "needs a problem variable's name before '='");
      if (std::any_of(out.begin(), out.end(), [&](const SweepVariable& v) { return v.name == name; }))
        throw ArgumentError("--over " + name, "is given twice");
      out.push_back({name, {}, false});
      values = part.substr(eq + 1);
    } else if (out.empty()) {
      throw ArgumentError("--over " + part, "needs NAME= first (e.g. n=" + part + ")");
    }
    SweepVariable& v = out.back();
    const auto colon = values.find(':');
    if (colon != std::string::npos) {
      if (!v.values.empty())
        throw ArgumentError("--over " + part, "a range LO:HI is the whole of " + v.name + "'s sizes, not a list item");
      const std::int64_t lo = size_of(values.substr(0, colon), part);
      const std::int64_t hi = size_of(values.substr(colon + 1), part);
      if (lo > hi) throw ArgumentError("--over " + part, "the range runs from " + std::to_string(lo) + " down to " +
                                                              std::to_string(hi) + ": write LO:HI, low first");
      if (points < 2 && lo != hi)
        throw ArgumentError("--points " + std::to_string(points), "a range " + part + " has two ends: --points 2 or more, or one size (" +
                                                                      v.name + "=" + std::to_string(lo) + ")");
      v.values = log_spaced(lo, hi, points);
      v.range = true;
      continue;
    }
    if (v.range) throw ArgumentError("--over " + part, v.name + " is a range already; a list item cannot follow it");
    const std::int64_t size = size_of(values, part);
    if (std::find(v.values.begin(), v.values.end(), size) != v.values.end())
      throw ArgumentError("--over " + part, v.name + "=" + std::to_string(size) + " is in the list twice");
    v.values.push_back(size);
  }
  return out;
}

std::vector<std::map<std::string, std::int64_t>> sweep_points(const std::vector<SweepVariable>& over) {
  std::size_t count = 1;
  for (const SweepVariable& v : over) {
    if (v.values.size() == 1) continue;
    if (count != 1 && v.values.size() != count)
      throw ArgumentError("--over", "the variables move together, so each needs as many sizes as the others (" +
                                        v.name + " has " + std::to_string(v.values.size()) + ", another " +
                                        std::to_string(count) + ")");
    count = v.values.size();
  }
  std::vector<std::map<std::string, std::int64_t>> out(count);
  for (std::size_t i = 0; i < count; ++i)
    for (const SweepVariable& v : over) out[i][v.name] = v.values.size() == 1 ? v.values.front() : v.values[i];
  return out;
}

} // namespace memtune::cli
