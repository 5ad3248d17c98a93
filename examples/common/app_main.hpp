#pragma once
// What the example applications share around their work: reading an element
// count from the command line, and a main that ends with a clear message and
// an exit code, never `terminate called`.
//
//   int main(int argc, char** argv) {
//     return examples::run_app("filter_app", [&] { return run(examples::count_argument(argc, argv, 1, 1 << 22, "n")); });
//   }
#include <memtune/io/errors.hpp>
#include <memtune/tune/tuner.hpp>

#include <charconv>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>

namespace examples {

// argv[index] as a count of at least 1, `fallback` when it is not given.
// Throws memtune::ArgumentError ("n: expected a whole number >= 1, got '16M'").
inline std::int64_t count_argument(int argc, char** argv, int index, std::int64_t fallback, const std::string& name) {
  if (index >= argc) return fallback;
  const std::string_view text = argv[index];
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 1)
    throw memtune::ArgumentError(name, "expected a whole number >= 1, got '" + std::string(text) + "'");
  return value;
}

// Runs the application: exit 3 without a GPU, 2 for a bad argument, 1 for bad
// input (a profile store or description that does not parse, a MEMTUNE_CONFIG
// that is not valid here) or a failed check; what went wrong on stderr.
inline int run_app(const std::string& program, const std::function<int()>& body) {
  return memtune::run_reporting_errors(program, std::cerr, [&] {
    try {
      return body();
    } catch (const memtune::DeviceRequired& e) {
      std::cerr << program << ": " << e.what() << "\n";
      return 3;
    }
  });
}

} // namespace examples
