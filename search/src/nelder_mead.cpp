#include <memtune/search/nelder_mead.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace memtune::search {

namespace {

// One simplex run; `evaluations` is shared across restarts.
NelderMeadResult simplex_run(const std::function<double(const Eigen::VectorXd&)>& f, Eigen::VectorXd x0,
                             const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, double initial_step,
                             int max_evaluations, double tolerance, int& evaluations) {
  const Eigen::Index d = x0.size();
  auto project = [&](Eigen::VectorXd x) { return Eigen::VectorXd(x.cwiseMax(lower).cwiseMin(upper)); };
  auto eval = [&](const Eigen::VectorXd& x) {
    ++evaluations;
    const double v = f(x);
    // A failed evaluation (NaN) is treated as the worst possible point.
    return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
  };

  std::vector<Eigen::VectorXd> simplex;
  std::vector<double> values;
  simplex.push_back(project(std::move(x0)));
  values.push_back(eval(simplex[0]));
  for (Eigen::Index i = 0; i < d; ++i) {
    Eigen::VectorXd x = simplex[0];
    // Step away from the nearer bound so that the vertex is not projected onto the start.
    x[i] += (x[i] + initial_step <= upper[i]) ? initial_step : -initial_step;
    simplex.push_back(project(x));
    values.push_back(eval(simplex.back()));
  }

  std::vector<std::size_t> order(simplex.size());
  while (evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    const std::size_t best = order.front(), worst = order.back(), second = order[order.size() - 2];
    if (std::abs(values[worst] - values[best]) < tolerance) break;

    Eigen::VectorXd centroid = Eigen::VectorXd::Zero(d);
    for (std::size_t i = 0; i + 1 < order.size(); ++i) centroid += simplex[order[i]];
    centroid /= static_cast<double>(d);

    const Eigen::VectorXd reflected = project(centroid + (centroid - simplex[worst]));
    const double fr = eval(reflected);
    if (fr < values[best]) {
      const Eigen::VectorXd expanded = project(centroid + 2.0 * (centroid - simplex[worst]));
      const double fe = eval(expanded);
      if (fe < fr) simplex[worst] = expanded, values[worst] = fe;
      else simplex[worst] = reflected, values[worst] = fr;
      continue;
    }
    if (fr < values[second]) {
      simplex[worst] = reflected, values[worst] = fr;
      continue;
    }
    const bool outside = fr < values[worst];
    const Eigen::VectorXd contracted =
        project(outside ? Eigen::VectorXd(centroid + 0.5 * (reflected - centroid))
                        : Eigen::VectorXd(centroid + 0.5 * (simplex[worst] - centroid)));
    const double fc = eval(contracted);
    if (fc < std::min(fr, values[worst])) {
      simplex[worst] = contracted, values[worst] = fc;
      continue;
    }
    for (std::size_t i = 1; i < order.size(); ++i) { // shrink towards the best vertex
      simplex[order[i]] = simplex[best] + 0.5 * (simplex[order[i]] - simplex[best]);
      values[order[i]] = eval(simplex[order[i]]);
    }
  }
  const auto it = std::min_element(values.begin(), values.end());
  return {simplex[static_cast<std::size_t>(it - values.begin())], *it, evaluations};
}

} // namespace

NelderMeadResult nelder_mead_minimize(const std::function<double(const Eigen::VectorXd&)>& f, Eigen::VectorXd x0,
                                      const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                                      double initial_step, int max_evaluations, double tolerance) {
  const Eigen::Index d = x0.size();
  if (lower.size() != d || upper.size() != d || (lower.array() > upper.array()).any())
    throw std::invalid_argument("nelder-mead: bounds do not match the start point");
  int evaluations = 0;
  NelderMeadResult best = simplex_run(f, std::move(x0), lower, upper, initial_step, max_evaluations, tolerance, evaluations);
  // Projection onto the box can flatten the simplex into a face, where it
  // converges to a wrong point; a fresh simplex from the best point restores
  // its dimension. Restart until a restart stops paying.
  while (evaluations < max_evaluations) {
    NelderMeadResult again = simplex_run(f, best.x, lower, upper, initial_step, max_evaluations, tolerance, evaluations);
    const bool better = again.value < best.value - tolerance;
    if (again.value < best.value) best = std::move(again);
    if (!better) break;
  }
  best.evaluations = evaluations;
  return best;
}

} // namespace memtune::search
