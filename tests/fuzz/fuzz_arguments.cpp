// The command line's size, list and --only arguments: the bytes are split
// into arguments at newlines and each goes through the checks the CLI makes
// (sizes with K/M/G, whole numbers, seconds, AXIS=VALUE lists, --only against
// a space with constraints and a pruned axis). Only ArgumentError may come out.
#include "harness.hpp"

#include "tune/src/only_axes.hpp"
#include "option_checks.hpp"
#include "size_parse.hpp"

#include <memtune/search/space.hpp>

#include <cstdlib>
#include <sstream>

namespace {

// A space shaped like the filter's: ordinal and categorical axes, a product
// constraint, an implication, and an axis the target pruned.
const memtune::search::Space& space() {
  static const memtune::search::Space s = [] {
    using namespace memtune::search;
    Space sp;
    sp.add(Axis::ordinal("block_size", {32, 64, 128, 256, 512, 1024}));
    sp.add(Axis::ordinal("items", {1, 2, 4, 8}));
    sp.add(Axis::ordinal("vec", {1, 2, 4}));
    sp.add(Axis::categorical("layout", {"aos", "soa"}));
    sp.require((axis("block_size") * axis("items") <= Expr(2048)).because("the tile fits in shared memory"));
    sp.require(axis("items") % axis("vec") == Expr(0));
    sp.note_pruned({"bank_mode", "sm_90 has fixed 4-byte shared-memory banks"});
    return sp;
  }();
  return s;
}

// A kernel whose problem is a size and a choice, like aos_soa's.
const memtune::KernelDescription& kernel() {
  static const memtune::KernelDescription k = [] {
    memtune::KernelDescription d;
    d.name = "fuzzed";
    d.problem = {{"n", 1 << 24, 1, std::int64_t{1} << 40, "elements", true},
                 {"op", 0, 0, 2, "op", false, {"read", "write", "rw"}}};
    return d;
  }();
  return k;
}

} // namespace

MEMTUNE_FUZZ_TEXT(text) {
  std::vector<std::string> args;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) args.push_back(line);
  for (const std::string& a : args) {
    if (const auto v = memtune::cli::parse_size(a); v && *v < 0) std::abort();
    std::string copy = a;
    (void)memtune::cli::whole_number()(copy);
    (void)memtune::cli::seconds()(copy);
  }
  if (!args.empty()) {
    std::map<std::string, std::optional<std::string>> typed{{"n", args[0]}};
    if (args.size() > 1) typed["op"] = args[1];
    (void)memtune::cli::parse_problem(kernel(), typed, memtune::cli::ProblemSyntax::kSet);
  }
  const auto only = memtune::cli::parse_only(args);
  (void)memtune::only_constraints(space(), only);
}
