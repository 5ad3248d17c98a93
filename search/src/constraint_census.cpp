#include <memtune/search/constraint_census.hpp>

#include <algorithm>

namespace memtune::search {

namespace {

std::string rule_text(const Constraint& c) {
  return c.reason().empty() ? c.to_string() : c.reason() + " (" + c.to_string() + ")";
}

} // namespace

ConstraintCensus constraint_census(const Space& space, std::size_t exact_limit) {
  const auto& constraints = space.constraints();
  std::vector<std::size_t> first_failed(constraints.size() + 1, 0); // the last slot: outside the shard
  ConstraintCensus census;
  const std::size_t n = space.cross_product_size();
  census.exact = n <= exact_limit;
  census.examined = census.exact ? n : Space::kSamples;
  Config point;
  for (std::size_t k = 0; k < census.examined; ++k) {
    space.at_index(census.exact ? k : space.sample_index(k), point);
    std::size_t failed = 0;
    while (failed < constraints.size() && constraints[failed].holds(point)) ++failed;
    if (failed < constraints.size()) ++first_failed[failed];
    else if (space.shard() && !space.shard()->contains(point)) ++first_failed.back();
    else ++census.valid;
  }
  for (std::size_t i = 0; i < constraints.size(); ++i)
    if (first_failed[i]) census.rejections.push_back({rule_text(constraints[i]), first_failed[i]});
  if (first_failed.back())
    census.rejections.push_back({"outside shard " + space.shard()->to_string(), first_failed.back()});
  std::stable_sort(census.rejections.begin(), census.rejections.end(),
                   [](const ConstraintRejection& a, const ConstraintRejection& b) { return a.count > b.count; });
  return census;
}

std::string ConstraintCensus::describe(std::size_t most) const {
  std::string s = "of " + std::to_string(examined) + (exact ? " configurations" : " sampled configurations");
  if (rejections.empty()) return s + ", none is rejected by a constraint";
  for (std::size_t i = 0; i < rejections.size() && i < most; ++i)
    s += (i ? ", " : " (each counted under the first rule it fails): ") + std::to_string(rejections[i].count) +
         " fail " + rejections[i].rule;
  if (rejections.size() > most) {
    const std::size_t more = rejections.size() - most;
    s += ", and " + std::to_string(more) + " more rule" + (more == 1 ? "" : "s");
  }
  if (valid) s += "; " + std::to_string(valid) + " valid";
  return s;
}

} // namespace memtune::search
