#include <memtune/search/candidate_posterior.hpp>
#include <memtune/search/gp.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>

using namespace memtune::search;

namespace {

// 60 points with two ordinal axes and one categorical axis of three labels.
Points mixed_points(std::mt19937_64& engine) {
  Points p = Points::zeros(60, 2, 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    p.ordinal(i, 0) = u(engine);
    p.ordinal(i, 1) = u(engine);
    p.categorical(i, 0) = static_cast<int>(i % 3);
  }
  return p;
}

MixedKernel some_kernel() {
  MixedKernel k = MixedKernel::defaults(2, 1);
  k.length_scales << 0.3, 0.7;
  k.mismatch_weights << 0.8;
  k.signal_variance = 1.7;
  k.noise_variance = 1e-3;
  return k;
}

// The posterior of a fresh GaussianProcess on the same rows, at every candidate.
void check_against_gp(const CandidatePosterior& post, const Points& candidates, const Eigen::VectorXd& y) {
  const GaussianProcess gp(post.kernel(), candidates.subset(post.rows()), y);
  const std::vector<Prediction> expected = gp.predict(candidates);
  Eigen::VectorXd mean, variance;
  post.predict(y, mean, variance);
  REQUIRE(mean.size() == candidates.size());
  for (Eigen::Index j = 0; j < candidates.size(); ++j) {
    CHECK(mean[j] == doctest::Approx(expected[static_cast<std::size_t>(j)].mean).epsilon(1e-7));
    CHECK(variance[j] == doctest::Approx(expected[static_cast<std::size_t>(j)].variance).epsilon(1e-6).scale(1.0));
  }
}

} // namespace

TEST_CASE("a posterior grown one observation at a time equals a GP fitted on them at once") {
  std::mt19937_64 engine(7);
  const Points candidates = mixed_points(engine);
  CandidatePosterior post(some_kernel(), candidates);
  Eigen::VectorXd y(0);
  for (const Eigen::Index row : {5, 17, 3, 42, 29, 11, 58, 0, 33, 21}) {
    post.add(row);
    y.conservativeResize(y.size() + 1);
    y[y.size() - 1] = std::sin(7.0 * candidates.ordinal(row, 0)) + candidates.ordinal(row, 1);
  }
  CHECK(post.observations() == 10);
  check_against_gp(post, candidates, y);

  SUBCASE("fantasies added and popped leave the posterior as it was") {
    Eigen::VectorXd before_mean, before_variance, after_mean, after_variance;
    post.predict(y, before_mean, before_variance);
    post.add(50);
    post.add(51);
    Eigen::VectorXd with(y.size() + 2);
    with << y, 0.5, -0.5;
    Eigen::VectorXd fantasy_mean, fantasy_variance;
    post.predict(with, fantasy_mean, fantasy_variance);
    CHECK(fantasy_variance[50] < before_variance[50]); // an observed point is known better
    post.pop();
    post.pop();
    post.predict(y, after_mean, after_variance);
    CHECK((after_mean - before_mean).cwiseAbs().maxCoeff() < 1e-9);
    CHECK((after_variance - before_variance).cwiseAbs().maxCoeff() < 1e-9);
  }
  SUBCASE("a new kernel rebuilds the same observations") {
    MixedKernel other = some_kernel();
    other.length_scales << 0.9, 0.2;
    other.noise_variance = 1e-2;
    post.set_kernel(other);
    CHECK(post.observations() == 10);
    check_against_gp(post, candidates, y);
  }
  SUBCASE("other points are predicted as the GP predicts them") {
    const Points at = candidates.subset({1, 2, 4});
    Eigen::VectorXd mean, variance, all_mean, all_variance;
    post.predict_at(at, y, mean, variance);
    post.predict(y, all_mean, all_variance);
    CHECK(mean[1] == doctest::Approx(all_mean[2]));
    CHECK(variance[2] == doctest::Approx(all_variance[4]));
  }
}

TEST_CASE("observations added at once give the posterior of one add each, and further adds extend it") {
  std::mt19937_64 engine(11);
  const Points candidates = mixed_points(engine);
  const std::vector<Eigen::Index> rows{5, 17, 3, 42, 29, 11, 58, 0, 33, 21, 8, 44, 37, 2, 19, 26, 50};
  CandidatePosterior one_by_one(some_kernel(), candidates), at_once(some_kernel(), candidates);
  for (const Eigen::Index r : rows) one_by_one.add(r);
  at_once.add_all(rows);
  CHECK(at_once.rows() == rows);
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t k = 0; k < rows.size(); ++k)
    y[static_cast<Eigen::Index>(k)] = std::cos(5.0 * candidates.ordinal(rows[k], 1)) - candidates.ordinal(rows[k], 0);
  Eigen::VectorXd m1, v1, m2, v2;
  one_by_one.predict(y, m1, v1);
  at_once.predict(y, m2, v2);
  CHECK((m1 - m2).cwiseAbs().maxCoeff() < 1e-9);
  CHECK((v1 - v2).cwiseAbs().maxCoeff() < 1e-9);
  check_against_gp(at_once, candidates, y);

  SUBCASE("a fantasy appended after add_all is popped again") {
    at_once.add(30);
    Eigen::VectorXd with(y.size() + 1);
    with << y, 0.25;
    Eigen::VectorXd fm, fv;
    at_once.predict(with, fm, fv);
    CHECK(fv[30] < v2[30]);
    at_once.pop();
    at_once.predict(y, fm, fv);
    CHECK((fm - m2).cwiseAbs().maxCoeff() < 1e-12);
  }
  SUBCASE("only on an empty posterior, and only rows of the candidates") {
    CHECK_THROWS_AS(at_once.add_all({1}), std::logic_error);
    CandidatePosterior empty(some_kernel(), candidates);
    CHECK_THROWS_AS(empty.add_all({1, 60}), std::out_of_range);
    CHECK(empty.observations() == 0);
  }
}

TEST_CASE("a posterior refuses a row outside its candidates and targets of the wrong length") {
  std::mt19937_64 engine(3);
  CandidatePosterior post(some_kernel(), mixed_points(engine));
  CHECK_THROWS_AS(post.add(60), std::out_of_range);
  CHECK_THROWS_AS(post.add(-1), std::out_of_range);
  CHECK_THROWS_AS(post.pop(), std::logic_error);
  post.add(1);
  Eigen::VectorXd mean, variance;
  CHECK_THROWS_AS(post.predict(Eigen::VectorXd::Zero(2), mean, variance), std::invalid_argument);
}
