#include <memtune/search/initial_design.hpp>

#include <memtune/search/rng.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace memtune::search {
namespace {

// One stratified coordinate per point: a random permutation of the strata,
// jittered uniformly within each.
std::vector<double> stratified_column(std::size_t n, std::mt19937_64& engine) {
  std::vector<std::size_t> strata(n);
  std::iota(strata.begin(), strata.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) std::swap(strata[i - 1], strata[uniform_index(engine, i)]);
  std::vector<double> u(n);
  for (std::size_t i = 0; i < n; ++i) u[i] = (static_cast<double>(strata[i]) + uniform01(engine)) / static_cast<double>(n);
  return u;
}

} // namespace

std::vector<std::size_t> latin_hypercube_design(const Points& candidates,
                                                const std::vector<std::size_t>& category_counts, std::size_t n,
                                                std::vector<bool>& taken, std::mt19937_64& engine) {
  if (taken.size() != static_cast<std::size_t>(candidates.size()))
    throw std::invalid_argument("initial design: 'taken' must have one flag per candidate");
  if (category_counts.size() != static_cast<std::size_t>(candidates.categorical.cols()))
    throw std::invalid_argument("initial design: need one label count per categorical axis");
  const std::size_t free = static_cast<std::size_t>(std::count(taken.begin(), taken.end(), false));
  n = std::min(n, free);
  if (n == 0) return {};

  const Eigen::Index no = candidates.ordinal.cols(), nc = candidates.categorical.cols();
  Eigen::MatrixXd target(static_cast<Eigen::Index>(n), no);
  Eigen::MatrixXi target_cat(static_cast<Eigen::Index>(n), nc);
  for (Eigen::Index o = 0; o < no; ++o) {
    // Stratify over the axis's levels, not the unit interval: with n points
    // on an axis of n levels every level is hit once, where snapping uniform
    // strata to the nearest level would collide.
    std::vector<double> levels(candidates.ordinal.col(o).data(), candidates.ordinal.col(o).data() + candidates.size());
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    const auto u = stratified_column(n, engine);
    for (std::size_t i = 0; i < n; ++i)
      target(static_cast<Eigen::Index>(i), o) =
          levels[std::min(static_cast<std::size_t>(u[i] * static_cast<double>(levels.size())), levels.size() - 1)];
  }
  for (Eigen::Index c = 0; c < nc; ++c) {
    const auto u = stratified_column(n, engine);
    const double k = static_cast<double>(category_counts[static_cast<std::size_t>(c)]);
    for (std::size_t i = 0; i < n; ++i)
      target_cat(static_cast<Eigen::Index>(i), c) = std::min(static_cast<int>(u[i] * k), static_cast<int>(k) - 1);
  }

  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < n; ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    double best_distance = std::numeric_limits<double>::infinity();
    std::size_t best = 0;
    for (Eigen::Index j = 0; j < candidates.size(); ++j) {
      if (taken[static_cast<std::size_t>(j)]) continue;
      double d = (candidates.ordinal.row(j) - target.row(row)).squaredNorm();
      d += static_cast<double>((candidates.categorical.row(j).array() != target_cat.row(row).array()).count());
      if (d < best_distance) best_distance = d, best = static_cast<std::size_t>(j);
    }
    taken[best] = true;
    chosen.push_back(best);
  }
  return chosen;
}

} // namespace memtune::search
