#pragma once
// A Problem is the size and shape a kernel is tuned for: named integers
// ({"n": 16777216, "taps": 21}). Each template declares its parameters.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memtune {

using Problem = std::map<std::string, std::int64_t>;

struct ProblemParameter {
  std::string name;
  std::int64_t default_value = 0;
  std::int64_t min = 1;
  std::int64_t max = INT64_MAX;
  std::string description;
  bool is_size = false; // a size axis: profiles fall back to the nearest size
  // A choice rather than a number ("read", "write"): the value is the index of
  // the label, and the CLI accepts the labels.
  std::vector<std::string> labels;
};

// Fills defaults, rejects unknown names and out-of-range values with a message
// naming the parameter and the allowed range (ArgumentError, a std::invalid_argument).
Problem complete_problem(const std::vector<ProblemParameter>& parameters, const Problem& given);

// "n=16777216 taps=21"
std::string format_problem(const Problem& problem);
// The same, with labels for choice parameters: "n=16777216 op=read fields=3".
std::string format_problem(const Problem& problem, const std::vector<ProblemParameter>& parameters);

} // namespace memtune
