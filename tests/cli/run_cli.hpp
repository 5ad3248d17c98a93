#pragma once
// Runs the memtune CLI in-process and keeps its exit code and output.
#include "app.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace memtune::cli::testing {

struct Run {
  int code;
  std::string out, err;
};

inline Run run_cli(std::vector<const char*> args) {
  args.insert(args.begin(), "memtune");
  std::ostringstream out, err;
  const int code = run(static_cast<int>(args.size()), args.data(), out, err);
  return {code, out.str(), err.str()};
}

} // namespace memtune::cli::testing
