#include <memtune/search/gp.hpp>
#include <memtune/search/hyperfit.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune::search;

namespace {

// y depends on the first ordinal axis and the category, not on the second axis.
struct Data {
  Points x;
  Eigen::VectorXd y;
};

Data make_data() {
  std::mt19937_64 engine(1);
  const int n = 30;
  Data d{Points::zeros(n, 2, 1), Eigen::VectorXd(n)};
  for (int i = 0; i < n; ++i) {
    d.x.ordinal(i, 0) = (i % 10) / 9.0;
    d.x.ordinal(i, 1) = static_cast<double>(engine() % 1000) / 999.0;
    d.x.categorical(i, 0) = (i / 10) % 2;
    d.y[i] = std::sin(5.0 * d.x.ordinal(i, 0)) + 1.5 * d.x.categorical(i, 0);
  }
  d.y = (d.y.array() - d.y.mean()) / std::sqrt((d.y.array() - d.y.mean()).square().mean());
  return d;
}

} // namespace

TEST_CASE("hyperparameter fitting raises the marginal likelihood and finds the irrelevant axis") {
  const Data d = make_data();
  const MixedKernel start = MixedKernel::defaults(2, 1);
  std::mt19937_64 engine(9);
  const HyperfitResult fit = fit_hyperparameters(d.x, d.y, start, engine);
  const double before = GaussianProcess(start, d.x, d.y).log_marginal_likelihood();
  CHECK(fit.log_marginal_likelihood > before);
  CHECK(fit.log_marginal_likelihood == doctest::Approx(GaussianProcess(fit.kernel, d.x, d.y).log_marginal_likelihood()));
  CHECK(fit.kernel.length_scales[1] > 3.0 * fit.kernel.length_scales[0]);
  CHECK(fit.kernel.noise_variance < 0.05);

  const HyperBounds b;
  CHECK(fit.kernel.length_scales.minCoeff() >= b.min_length_scale * (1 - 1e-9));
  CHECK(fit.kernel.length_scales.maxCoeff() <= b.max_length_scale * (1 + 1e-9));
}

TEST_CASE("hyperparameter fitting is deterministic for a seed") {
  const Data d = make_data();
  std::mt19937_64 e1(4), e2(4);
  const auto a = fit_hyperparameters(d.x, d.y, MixedKernel::defaults(2, 1), e1);
  const auto b = fit_hyperparameters(d.x, d.y, MixedKernel::defaults(2, 1), e2);
  CHECK(a.kernel.to_log_params() == b.kernel.to_log_params());
  CHECK_THROWS_AS((void)fit_hyperparameters(d.x.subset({0}), d.y.head(1), MixedKernel::defaults(2, 1), e1),
                  std::invalid_argument);
}
