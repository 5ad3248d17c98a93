#pragma once
// --only AXIS=VALUE, checked against the space before anything compiles: the
// axis exists (or the target pruned it, and why), the value is on it, and some
// configuration with these values satisfies the space's constraints (or the
// constraints that rule them all out are named).
#include <memtune/search/space.hpp>

#include <map>
#include <string>
#include <vector>

namespace memtune {

// The constraints that fix each axis to its value. Throws ArgumentError
// (argument "--only AXIS=VALUE") saying what is wrong.
[[nodiscard]] std::vector<search::Constraint> only_constraints(const search::Space& space,
                                                              const std::map<std::string, std::string>& only);

} // namespace memtune
