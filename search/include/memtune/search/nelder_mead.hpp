#pragma once
// A small bounded Nelder-Mead minimiser, for the GP's hyperparameters.
//
// Derivative-free, so the log marginal likelihood needs no gradient code;
// with <= 10 parameters and a few hundred evaluations it is fast enough.
// Bounds are enforced by projecting every trial point into the box.
#include <Eigen/Core>

#include <functional>

namespace memtune::search {

struct NelderMeadResult {
  Eigen::VectorXd x; // best point found, inside [lower, upper]
  double value = 0.0;
  int evaluations = 0;
};

// Minimises f from x0 (projected into the box). initial_step is the simplex
// edge along each coordinate. Stops after max_evaluations, or when the
// simplex's values differ by less than tolerance.
// Preconditions: x0, lower, upper have one size; lower <= upper.
[[nodiscard]] NelderMeadResult nelder_mead_minimize(const std::function<double(const Eigen::VectorXd&)>& f,
                                                    Eigen::VectorXd x0, const Eigen::VectorXd& lower,
                                                    const Eigen::VectorXd& upper, double initial_step,
                                                    int max_evaluations, double tolerance = 1e-7);

} // namespace memtune::search
