#pragma once
// Runs the memtune command line in-process and captures what it prints.
#include "app.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace memtune::testing {

struct CliRun {
  int code;
  std::string out, err;
};

inline CliRun run_cli(std::vector<const char*> args) {
  args.insert(args.begin(), "memtune");
  std::ostringstream out, err;
  const int code = cli::run(static_cast<int>(args.size()), args.data(), out, err);
  return {code, out.str(), err.str()};
}

// The same for arguments built as strings (paths, sizes).
inline CliRun run_cli_args(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run_cli(argv);
}

} // namespace memtune::testing
