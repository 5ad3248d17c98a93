#pragma once
// Acquisition functions for minimisation: how much a candidate with
// predictive mean `mean` and standard deviation `sd` promises to beat the
// best target seen so far, `best`. Units are those of the target (the search
// uses standardised log-time). `xi` >= 0 is a margin that asks for
// improvement by more than noise, which leans the search towards exploring.
namespace memtune::search {

// Standard normal density and distribution.
[[nodiscard]] double normal_pdf(double z);
[[nodiscard]] double normal_cdf(double z);

// E[max(0, best - xi - Y)], Y ~ N(mean, sd^2). With sd == 0 it is
// max(0, best - xi - mean); for equal means it grows with sd. Precondition: sd >= 0.
[[nodiscard]] double expected_improvement(double mean, double sd, double best, double xi = 0.0);

// P(Y < best - xi). With sd == 0: 1 if mean < best - xi, else 0.
[[nodiscard]] double probability_of_improvement(double mean, double sd, double best, double xi = 0.0);

// mean - kappa * sd: lower is more promising (an optimistic estimate).
[[nodiscard]] double lower_confidence_bound(double mean, double sd, double kappa);

} // namespace memtune::search
