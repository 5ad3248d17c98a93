#pragma once
// Why a space's configurations are invalid: for each constraint, how many
// configurations it is the first to reject. A user whose problem size leaves
// no valid configuration ("imageH % BY == 0" at an odd height) learns which
// rule to relax instead of reading "no configuration is valid".
//
//   const ConstraintCensus c = constraint_census(space);
//   c.describe(); // "of 200 configurations (each counted under the first rule it
//                 //  fails): 160 fail whole tiles in y ((7 % BY) == 0), 40 fail ..."
#include <memtune/search/space.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace memtune::search {

struct ConstraintRejection {
  std::string rule; // the constraint's reason and expression, or "outside shard 2/4"
  std::size_t count = 0;
};

struct ConstraintCensus {
  std::size_t examined = 0; // configurations looked at: all of them, or the sample
  bool exact = true;        // false: a sample of a cross product above the walk limit
  std::size_t valid = 0;    // of those examined
  std::vector<ConstraintRejection> rejections; // most rejections first, none of 0
  // "of 200 configurations (...): 160 fail <rule>, 40 fail <rule>" (the first `most`
  // rules, then "and N more rules"); a sample says "of 65536 sampled".
  [[nodiscard]] std::string describe(std::size_t most = 3) const;
};

// Walks the cross product when it has at most `exact_limit` points, else the
// evenly spread sample count_valid uses (Space::sample_index).
ConstraintCensus constraint_census(const Space& space, std::size_t exact_limit = Space::kExactCountLimit);

} // namespace memtune::search
