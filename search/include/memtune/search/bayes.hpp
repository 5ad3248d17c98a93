#pragma once
// Bayesian optimisation over a finite space: a Gaussian process on
// log(time), a GP-Hedge portfolio of acquisitions (EI, PI, LCB) times
// P(feasible), maximised over the candidates: every valid config not yet
// proposed of a small space, a fresh sample of a large one.
//
//   std::mt19937_64 engine{42};
//   BayesianSearch bayes(space, engine);
//   while (auto c = bayes.next()) bayes.observe(evaluate(*c));
//
// Batches, for several workers: with batch_size = q, lookahead() is q and a
// caller keeps up to q proposals outstanding, observing each when it ends,
// in any order:
//
//   for (int w = 0; w < q; ++w) dispatch(bayes.next());       // fill the workers
//   on_result(trial): bayes.observe(trial); dispatch(bayes.next());
//
// A proposal made while others are outstanding treats each outstanding
// config as observed with a fantasy time (options.fantasy), so the batch
// spreads instead of piling onto one optimum of the acquisition.
//
// 1. A Latin-hypercube first batch (initial_design.hpp) snapped to valid configs;
//    with a prior mean, the prior's argmin first and a smaller batch after it.
// 2. Then, per proposal: targets y = log(time [s]) - prior_mean(config),
//    standardised; the kernel's hyperparameters (kernels.hpp) are refitted by
//    maximum marginal likelihood (hyperfit.hpp) after every new success while
//    fewer than `refit_every_below` succeeded, then whenever the successes
//    grew by `refit_growth` since the last fit (the fit dominates the cost
//    and changes little late).
// 3. Failed trials are not fitted; they train the feasibility model
//    (feasibility.hpp, a second GP on outcomes, refitted on the growth
//    schedule) whose probability multiplies every acquisition.
// 4. EI, PI and LCB each nominate their best candidate; the portfolio
//    (portfolio.hpp) draws one, and rewards each arm next round with minus
//    the refitted model's mean at its nominee. With `acquisition = ei`, EI alone.
// 5. When EI has vanished everywhere (the model is sure nothing beats the
//    best), the lowest lower-confidence bound among likely-feasible configs
//    is proposed instead, so the search keeps going until told to stop.
// 6. Candidates: a space whose cross product is at most `exhaustive_limit`
//    is scored whole (every valid config, in grid order, held once). A
//    larger one is never listed: the first batch is drawn from a random
//    sample of `candidate_pool` valid configs, and each later proposal scores
//    a fresh sample of that size plus the one-axis neighbours of the three
//    best configs so far (the local moves a random sample of 10^7 points
//    would miss). Only proposed and observed configs are kept. Should a
//    sample exhaust the space (few valid configs in a large cross
//    product), the search holds them all and scores them whole from then on.
#include <memtune/search/candidate_posterior.hpp>
#include <memtune/search/encoding.hpp>
#include <memtune/search/hyperfit.hpp>
#include <memtune/search/kernels.hpp>
#include <memtune/search/portfolio.hpp>
#include <memtune/search/strategy.hpp>

#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

namespace memtune::search {

struct BayesOptions {
  // Size of the first batch; 0 means max(5, 2 x number of axes), or with a
  // prior mean max(3, axes + 1): the prior's argmin (near-ties drawn from the
  // engine, prior_tie_tolerance) followed by a space-filling batch
  // (see prior_design_fraction).
  std::size_t initial_points = 0;
  // EI margin, in units of the spread of the observed log-times.
  double xi = 0.01;
  HyperfitOptions hyperfit;
  // Refit hyperparameters when the successful trials grew by this fraction,
  // and after every new one while fewer than `refit_every_below` succeeded
  // (early fits move a lot and are cheap).
  double refit_growth = 0.15;
  std::size_t refit_every_below = 30;
  // How candidates are scored: plain expected improvement, or a GP-Hedge
  // portfolio of EI, probability of improvement and the lower confidence
  // bound (portfolio.hpp).
  enum class Acquisition { ei, hedge };
  Acquisition acquisition = Acquisition::hedge;
  double hedge_eta = 1.0;   // portfolio learning rate [1 / standardised log-time]
  double lcb_kappa = 2.0;   // LCB's exploration weight [standard deviations]
  // Multiply EI by P(feasible). Off only to measure what the model buys.
  bool use_feasibility = true;
  // Optional prior mean: predicted log(time [s]) of a config, e.g. from an
  // analytical model. The GP then learns only the model's error, and the
  // first proposal is the config the prior predicts fastest. Only
  // differences between configs matter (a constant offset is absorbed).
  std::function<double(const Config&)> prior_mean;
  // The first proposal is drawn among the configs the prior predicts within
  // this fraction of its fastest (0.01: 1 %), not only its exact argmin: an
  // analytical model's error is far above 1 %, so its ranking inside that
  // band is no information, and picking by it would be grid-order luck.
  double prior_tie_tolerance = 0.01;
  // With a prior mean, the first batch tries ceil((size - 1) / 2) points
  // spread over this fraction of the configs, those the prior predicts
  // fastest, before the space-filling batch over the whole space (1: no such
  // points). Measured on the H100 recordings, 30 seeds, evaluations to within
  // 5 % (docs/search.md), 0.1 against 1: matvec row 10.5 -> 2.5, filter
  // 9 -> 11.5, fdtd 18 -> 21, the rest unchanged. With an inverted prior
  // every seed of 10 still finds the optimum (median 20.5 evaluations, 19
  // without these points).
  double prior_design_fraction = 0.1;
  // Proposals outstanding at once: lookahead() (>= 1). Set it to the number
  // of workers evaluating in parallel.
  std::size_t batch_size = 1;
  // What an outstanding proposal is assumed to have measured while the next
  // is chosen (docs/search.md, "Batches"): the GP's own mean there (the
  // Kriging believer: the mean stays, the variance there collapses), or the
  // best time so far (a constant liar, CL-min: the region looks solved, so
  // the next proposal looks elsewhere).
  enum class Fantasy { kriging_believer, constant_liar };
  Fantasy fantasy = Fantasy::kriging_believer;
  // Spaces with a cross product up to this are scored whole; larger ones
  // are sampled, `candidate_pool` valid configs per proposal (see 6 above).
  // 2048 rather than 4096: a sampled step costs candidates x model_points
  // kernel evaluations and candidates x model_points^2 for the solve, and on
  // two synthetic spaces (docs/search.md, "Cost of a step") the smaller pool
  // reached 5 % of the optimum as fast.
  std::size_t exhaustive_limit = std::size_t{1} << 14;
  std::size_t candidate_pool = 2048;
  // The cost of a step (docs/search.md, "Cost of a step"). Hyperparameters
  // are fitted on at most fit_points successes, spread over the space; past
  // that many, the refit waits for the successes to double. The posterior of
  // a space scored whole is kept and updated per observation; where it is
  // rebuilt per proposal (a sampled space, or more than
  // BayesianSearch::kCachedEntries candidates x successes), it regresses on
  // at most model_points successes: the best half and a spread of the rest
  // (64: the step's cost is quadratic in it, see candidate_pool).
  std::size_t fit_points = 128;
  std::size_t model_points = 64;
};

class BayesianSearch final : public Strategy {
public:
  // The space and the engine are borrowed and must outlive the strategy.
  // Same seed, same options, same observations in the same order: same
  // proposals. Throws std::invalid_argument when the prior mean is not
  // finite on some valid config (a sampled space: when such a config is
  // drawn), when prior_design_fraction is not in (0, 1], or when batch_size
  // or candidate_pool is 0.
  BayesianSearch(const Space& space, std::mt19937_64& engine, BayesOptions options = {});

  [[nodiscard]] std::string name() const override { return "bayes"; }
  std::optional<Config> next() override;
  // Any valid config, proposed or not, in any order. Precondition: when ok,
  // its time is positive and finite (std::invalid_argument otherwise, and for
  // a config that is not a valid point of the space).
  void observe(const Trial& trial) override;
  [[nodiscard]] std::size_t lookahead() const override { return options_.batch_size; }

  // The kernel of the last fit (the defaults before the first).
  [[nodiscard]] const MixedKernel& kernel() const { return kernel_; }
  // Configs held: every valid one of a space scored whole; of a sampled
  // space, those proposed or observed.
  [[nodiscard]] std::size_t candidates() const { return grid_.size(); }
  // Proposed and not yet observed.
  [[nodiscard]] std::size_t outstanding() const { return pending_.size(); }

  // Candidates x successes up to which the posterior over every candidate is
  // kept between proposals (8 bytes each: 128 MB).
  static constexpr std::size_t kCachedEntries = std::size_t{1} << 24;

private:
  [[nodiscard]] std::optional<std::size_t> propose_from_model();
  // P(feasible) of each free candidate from the outcomes of `observed`.
  [[nodiscard]] std::vector<double> feasibility(const std::vector<Eigen::Index>& observed,
                                                const std::vector<Eigen::Index>& free, bool cached);
  // Sampled spaces: adds a fresh sample (and the best configs' neighbours)
  // to the candidates; switches to scoring whole when the sample drained
  // the space.
  void add_sample(std::size_t size, bool with_neighbours);
  void add_candidates(const std::vector<std::size_t>& indices);
  // Drops the candidates from `start` on that are not taken, except `keep`;
  // returns keep's new index. Remaps design_.
  std::optional<std::size_t> drop_untaken_from(std::size_t start, std::optional<std::size_t> keep);
  // Cross-product indices of the valid one-axis neighbours of the best configs.
  [[nodiscard]] std::vector<std::size_t> neighbours_of_best(std::size_t best_count) const;

  const Space* space_;
  Encoder encoder_;
  bool sampled_ = false;        // candidates are a sample, not every valid config
  // The candidates, by cross-product index (Space::at_index): every valid
  // config in grid order, or a sample. Configs are built only for the one
  // proposed: a sampled step scores thousands.
  std::vector<std::size_t> grid_;
  std::unordered_map<std::size_t, std::size_t> index_; // cross-product index -> candidate
  Config scratch_; // reused by at_index for the constraint checks of a sample
  Points points_;
  std::vector<std::size_t> category_counts_;
  std::mt19937_64* engine_;
  BayesOptions options_;

  std::vector<bool> taken_; // proposed or observed
  std::vector<std::size_t> design_;
  std::size_t design_next_ = 0;
  std::map<std::size_t, std::optional<double>> observed_; // candidate -> time [s], nullopt = failed
  std::set<std::size_t> pending_;                         // proposed, not yet observed
  std::vector<double> prior_log_time_;                    // per candidate; empty without a prior mean

  MixedKernel kernel_;
  std::size_t ok_at_last_fit_ = 0;
  HedgePortfolio hedge_{3};
  Points nominees_; // per hedge arm: the point it nominated last time
  MixedKernel feasibility_kernel_;
  std::optional<CandidatePosterior> cache_;             // over every candidate of a space scored whole
  std::optional<CandidatePosterior> feasibility_cache_; // the same for the outcomes
  std::size_t observed_at_last_feasibility_fit_ = 0;
};

} // namespace memtune::search
