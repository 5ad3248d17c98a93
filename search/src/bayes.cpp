#include <memtune/search/bayes.hpp>

#include <memtune/search/acquisition.hpp>
#include <memtune/search/candidate_posterior.hpp>
#include <memtune/search/feasibility.hpp>
#include <memtune/search/initial_design.hpp>
#include <memtune/search/lazy_permutation.hpp>
#include <memtune/search/rng.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace memtune::search {
namespace {

// At most `limit` of `rows`, evenly spread over them (rows in candidate
// order: spread over the space's grid order too).
std::vector<Eigen::Index> spread_subset(const std::vector<Eigen::Index>& rows, std::size_t limit) {
  if (rows.size() <= limit) return rows;
  std::vector<Eigen::Index> out;
  for (std::size_t k = 0; k < limit; ++k) out.push_back(rows[k * rows.size() / limit]);
  return out;
}

// At most `limit` successes to regress on: the best half (where the
// acquisition decides, the model must be exact) and the rest spread over the
// others (so that it still knows where it is bad).
std::vector<Eigen::Index> local_subset(const std::vector<Eigen::Index>& ok_rows, const std::vector<double>& y_of,
                                       std::size_t limit) {
  if (ok_rows.size() <= limit) return ok_rows;
  std::vector<Eigen::Index> by_time = ok_rows;
  std::stable_sort(by_time.begin(), by_time.end(), [&](Eigen::Index a, Eigen::Index b) {
    return y_of[static_cast<std::size_t>(a)] < y_of[static_cast<std::size_t>(b)];
  });
  const std::size_t best = limit / 2;
  std::vector<Eigen::Index> out(by_time.begin(), by_time.begin() + static_cast<std::ptrdiff_t>(best));
  std::vector<Eigen::Index> rest(by_time.begin() + static_cast<std::ptrdiff_t>(best), by_time.end());
  std::sort(rest.begin(), rest.end());
  for (const Eigen::Index r : spread_subset(rest, limit - best)) out.push_back(r);
  return out;
}

} // namespace

BayesianSearch::BayesianSearch(const Space& space, std::mt19937_64& engine, BayesOptions options)
    : space_(&space), encoder_(space), engine_(&engine), options_(std::move(options)), hedge_(3, options_.hedge_eta) {
  if (!(options_.prior_design_fraction > 0.0 && options_.prior_design_fraction <= 1.0))
    throw std::invalid_argument("bayes: prior_design_fraction must be in (0, 1], got " +
                                std::to_string(options_.prior_design_fraction));
  if (options_.batch_size == 0) throw std::invalid_argument("bayes: batch_size must be at least 1");
  if (options_.candidate_pool == 0) throw std::invalid_argument("bayes: candidate_pool must be at least 1");
  category_counts_ = encoder_.category_counts();
  kernel_ = MixedKernel::defaults(encoder_.ordinal_axes(), encoder_.categorical_axes());
  feasibility_kernel_ = kernel_;
  points_ = Points::zeros(0, encoder_.ordinal_axes(), encoder_.categorical_axes());
  nominees_ = points_;
  sampled_ = space.cross_product_size() > options_.exhaustive_limit;
  if (sampled_) {
    add_sample(options_.candidate_pool, false);
  } else {
    // Every valid config in grid order (Space::enumerate's order, without its Configs).
    std::vector<std::size_t> valid;
    for (std::size_t i = 0; i < space.cross_product_size(); ++i) {
      space.at_index(i, scratch_);
      if (space.admits(scratch_)) valid.push_back(i);
    }
    add_candidates(valid);
  }

  const bool has_prior = !prior_log_time_.empty();
  const std::size_t axes = space.axes().size();
  const std::size_t n_initial = options_.initial_points ? options_.initial_points
                                : has_prior         ? std::max<std::size_t>(3, axes + 1)
                                                    : std::max<std::size_t>(5, 2 * axes);
  if (has_prior && !grid_.empty()) {
    // The prior's best guess first. Predictions within prior_tie_tolerance
    // of the fastest are ties (a model cannot resolve differences that
    // small), drawn from the engine rather than left to grid order.
    const double lowest = *std::min_element(prior_log_time_.begin(), prior_log_time_.end());
    const double tie = std::log1p(std::max(0.0, options_.prior_tie_tolerance)) + 1e-12;
    std::vector<std::size_t> best;
    for (std::size_t i = 0; i < grid_.size(); ++i)
      if (prior_log_time_[i] <= lowest + tie) best.push_back(i);
    const std::size_t first = best[static_cast<std::size_t>(uniform_index(*engine_, best.size()))];
    taken_[first] = true;
    design_.push_back(first);
  }
  if (n_initial > design_.size()) {
    // With a prior, the batch first spreads a few points over the configs the
    // prior ranks fastest (prior_design_fraction of the space): the model's
    // error is too large to trust its argmin, but its slowest configs rarely
    // beat its fastest. The space-filling batch over the whole space follows
    // at full size, so that a wrong prior still shows the GP where it is
    // wrong.
    std::size_t focused = 0;
    if (has_prior && options_.prior_design_fraction < 1.0) {
      std::vector<std::size_t> order(grid_.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return prior_log_time_[a] < prior_log_time_[b]; });
      const std::size_t remaining = n_initial - design_.size();
      focused = (remaining + 1) / 2;
      const auto fraction = static_cast<std::size_t>(
          std::ceil(options_.prior_design_fraction * static_cast<double>(order.size())));
      const std::size_t keep = std::max(n_initial, fraction);
      std::vector<bool> outside = taken_;
      for (std::size_t r = keep; r < order.size(); ++r) outside[order[r]] = true;
      const auto near = latin_hypercube_design(points_, category_counts_, focused, outside, *engine_);
      for (const std::size_t i : near) taken_[i] = true;
      design_.insert(design_.end(), near.begin(), near.end());
    }
    if (n_initial + focused > design_.size()) {
      const auto spread =
          latin_hypercube_design(points_, category_counts_, n_initial + focused - design_.size(), taken_, *engine_);
      design_.insert(design_.end(), spread.begin(), spread.end());
    }
  }
  if (sampled_) drop_untaken_from(0, std::nullopt); // keep the design, not the sample it was drawn from
}

std::optional<Config> BayesianSearch::next() {
  while (design_next_ < design_.size()) {
    const std::size_t i = design_[design_next_++];
    if (observed_.count(i)) continue; // skip points someone observed behind our back
    pending_.insert(i);
    return space_->at_index(grid_[i]);
  }
  const std::size_t held = grid_.size();
  if (sampled_) add_sample(options_.candidate_pool, true);
  std::optional<std::size_t> pick = propose_from_model();
  if (sampled_) pick = drop_untaken_from(held, pick); // the sample served this proposal only
  if (!pick) return std::nullopt;
  taken_[*pick] = true;
  pending_.insert(*pick);
  return space_->at_index(grid_[*pick]);
}

void BayesianSearch::observe(const Trial& trial) {
  const std::optional<std::size_t> g = space_->index_of(trial.config);
  const auto it = g ? index_.find(*g) : index_.end();
  // A sampled space holds only what it proposed: any other valid config is welcome.
  if (it == index_.end() && !(sampled_ && space_->is_valid(trial.config)))
    throw std::invalid_argument("bayes: observed a config that is not a valid point of the space");
  if (trial.ok() && !(std::isfinite(*trial.time_s) && *trial.time_s > 0.0))
    throw std::invalid_argument("bayes: a successful trial needs a positive, finite time");
  std::size_t i = 0;
  if (it != index_.end()) {
    i = it->second;
  } else {
    add_candidates({*g});
    i = grid_.size() - 1;
  }
  taken_[i] = true;
  observed_[i] = trial.time_s;
  pending_.erase(i);
}

std::optional<std::size_t> BayesianSearch::propose_from_model() {
  std::vector<Eigen::Index> free;
  for (std::size_t i = 0; i < grid_.size(); ++i)
    if (!taken_[i]) free.push_back(static_cast<Eigen::Index>(i));
  if (free.empty()) return std::nullopt;

  std::vector<Eigen::Index> ok_rows, all_rows;
  std::vector<bool> ok_flags;
  for (const auto& [i, time] : observed_) {
    all_rows.push_back(static_cast<Eigen::Index>(i));
    ok_flags.push_back(time.has_value());
    if (time) ok_rows.push_back(static_cast<Eigen::Index>(i));
  }
  if (ok_rows.size() < 2) {
    // Nothing to regress on yet (the first batch failed): keep filling the space.
    return latin_hypercube_design(points_, category_counts_, 1, taken_, *engine_).front();
  }

  // Standardised residual log-times, indexed by candidate.
  Eigen::VectorXd y(static_cast<Eigen::Index>(ok_rows.size()));
  for (std::size_t r = 0; r < ok_rows.size(); ++r) {
    const auto i = static_cast<std::size_t>(ok_rows[r]);
    y[static_cast<Eigen::Index>(r)] = std::log(*observed_.at(i)) - (prior_log_time_.empty() ? 0.0 : prior_log_time_[i]);
  }
  const double mean = y.mean();
  const double spread = std::sqrt((y.array() - mean).square().mean());
  const double scale = spread > 1e-12 ? spread : 1.0;
  y = (y.array() - mean) / scale;
  std::vector<double> y_of(grid_.size(), 0.0);
  for (std::size_t r = 0; r < ok_rows.size(); ++r) y_of[static_cast<std::size_t>(ok_rows[r])] = y[static_cast<Eigen::Index>(r)];

  // Hyperparameters: after every success while few, then on a geometric
  // schedule, on at most fit_points successes spread over the space (past
  // that many, the fit's cost would dominate a step, and more points barely
  // move the hyperparameters: the growth between refits is then doubled).
  const double growth = ok_at_last_fit_ < options_.fit_points ? options_.refit_growth : 1.0;
  const bool refit = ok_at_last_fit_ == 0 ||
                     (ok_rows.size() < options_.refit_every_below && ok_rows.size() != ok_at_last_fit_) ||
                     static_cast<double>(ok_rows.size()) >= (1.0 + growth) * static_cast<double>(ok_at_last_fit_);
  if (refit) {
    const std::vector<Eigen::Index> fit_rows = spread_subset(ok_rows, options_.fit_points);
    Eigen::VectorXd fit_y(static_cast<Eigen::Index>(fit_rows.size()));
    for (std::size_t r = 0; r < fit_rows.size(); ++r)
      fit_y[static_cast<Eigen::Index>(r)] = y_of[static_cast<std::size_t>(fit_rows[r])];
    kernel_ = fit_hyperparameters(points_.subset(fit_rows), fit_y, kernel_, *engine_, options_.hyperfit).kernel;
    ok_at_last_fit_ = ok_rows.size();
  }
  double best_log_time = std::numeric_limits<double>::infinity();
  for (const Eigen::Index i : ok_rows) best_log_time = std::min(best_log_time, std::log(*observed_.at(static_cast<std::size_t>(i))));

  // The posterior at the candidates (candidate_posterior.hpp). A space scored
  // whole keeps one across proposals, over every candidate, and adds each new
  // success to it: a step costs O(n N), not O(n^2 N). Otherwise (a sampled
  // space, whose candidates change every proposal, or a cache that would
  // outgrow kCachedEntries) it is built per proposal over the candidates at
  // hand, regressing on at most model_points successes (local_subset).
  const bool cached = !sampled_ && grid_.size() * ok_rows.size() <= kCachedEntries;
  std::vector<Eigen::Index> where(grid_.size(), -1); // candidate -> row of the posterior
  std::optional<CandidatePosterior> local;
  CandidatePosterior* post = nullptr;
  if (cached) {
    bool stale = !cache_;
    if (cache_)
      for (const Eigen::Index r : cache_->rows())
        if (!observed_.at(static_cast<std::size_t>(r))) stale = true; // a success re-observed as a failure
    if (cache_ && cache_->candidates() != points_.size()) stale = true;
    if (stale) cache_.emplace(kernel_, points_);
    else if (refit) cache_->set_kernel(kernel_);
    std::vector<bool> in(grid_.size(), false);
    for (const Eigen::Index r : cache_->rows()) in[static_cast<std::size_t>(r)] = true;
    for (const Eigen::Index r : ok_rows)
      if (!in[static_cast<std::size_t>(r)]) cache_->add(r);
    for (std::size_t i = 0; i < grid_.size(); ++i) where[i] = static_cast<Eigen::Index>(i);
    post = &*cache_;
  } else {
    cache_.reset();
    const std::vector<Eigen::Index> model_rows = local_subset(ok_rows, y_of, options_.model_points);
    std::vector<Eigen::Index> rows = model_rows;
    rows.insert(rows.end(), pending_.begin(), pending_.end());
    rows.insert(rows.end(), free.begin(), free.end());
    for (std::size_t r = 0; r < rows.size(); ++r) where[static_cast<std::size_t>(rows[r])] = static_cast<Eigen::Index>(r);
    local.emplace(kernel_, points_.subset(rows));
    std::vector<Eigen::Index> observed_rows(model_rows.size());
    for (std::size_t r = 0; r < model_rows.size(); ++r) observed_rows[r] = static_cast<Eigen::Index>(r);
    local->add_all(observed_rows);
    post = &*local;
  }
  const auto model_size = static_cast<std::size_t>(post->observations());
  Eigen::VectorXd model_y(post->observations());
  std::vector<Eigen::Index> model_candidates; // the candidate of each posterior observation
  {
    std::vector<Eigen::Index> back(static_cast<std::size_t>(post->candidates()), -1);
    for (std::size_t i = 0; i < grid_.size(); ++i)
      if (where[i] >= 0) back[static_cast<std::size_t>(where[i])] = static_cast<Eigen::Index>(i);
    for (std::size_t r = 0; r < model_size; ++r) {
      model_candidates.push_back(back[static_cast<std::size_t>(post->rows()[r])]);
      model_y[static_cast<Eigen::Index>(r)] = y_of[static_cast<std::size_t>(model_candidates.back())];
    }
  }
  Eigen::VectorXd real_mean, real_variance;
  post->predict(model_y, real_mean, real_variance);
  // Outstanding proposals (a batch in flight) enter the regression with a
  // fantasy target, so that this proposal moves away from them. The
  // hyperparameters stay those fitted on real measurements.
  Eigen::VectorXd post_mean = real_mean, post_variance = real_variance;
  if (!pending_.empty()) {
    Eigen::VectorXd targets(post->observations() + static_cast<Eigen::Index>(pending_.size()));
    targets.head(post->observations()) = model_y;
    Eigen::Index r = post->observations();
    for (const std::size_t p : pending_) {
      targets[r++] = options_.fantasy == BayesOptions::Fantasy::kriging_believer
                         ? real_mean[where[p]]
                         : (best_log_time - (prior_log_time_.empty() ? 0.0 : prior_log_time_[p]) - mean) / scale;
      post->add(where[p]);
    }
    post->predict(targets, post_mean, post_variance);
    for (std::size_t k = 0; k < pending_.size(); ++k) post->pop();
  }
  std::vector<Prediction> predicted(free.size());
  for (std::size_t j = 0; j < free.size(); ++j) {
    const Eigen::Index at = where[static_cast<std::size_t>(free[j])];
    predicted[j] = {post_mean[at], post_variance[at]};
  }

  std::vector<double> feasible(free.size(), 1.0);
  if (options_.use_feasibility && ok_rows.size() < all_rows.size()) {
    if (observed_at_last_feasibility_fit_ == 0 ||
        static_cast<double>(all_rows.size()) >=
            (1.0 + options_.refit_growth) * static_cast<double>(observed_at_last_feasibility_fit_)) {
      const std::vector<Eigen::Index> fit_rows = spread_subset(all_rows, options_.fit_points);
      std::vector<bool> fit_ok;
      for (const Eigen::Index r : fit_rows) fit_ok.push_back(observed_.at(static_cast<std::size_t>(r)).has_value());
      feasibility_kernel_ =
          FeasibilityModel::fit_kernel(points_.subset(fit_rows), fit_ok, feasibility_kernel_, *engine_, options_.hyperfit);
      observed_at_last_feasibility_fit_ = all_rows.size();
      feasibility_cache_.reset();
    }
    feasible = feasibility(all_rows, free, cached);
  }
  // Compare in log-time, not in residuals: with a prior mean the residuals
  // hide which configs the prior thinks fast. mean_lt = prior + m + s * z.
  std::vector<double> mean_lt(free.size()), sd_lt(free.size());
  for (std::size_t j = 0; j < free.size(); ++j) {
    const double prior = prior_log_time_.empty() ? 0.0 : prior_log_time_[static_cast<std::size_t>(free[j])];
    mean_lt[j] = prior + mean + scale * predicted[j].mean;
    sd_lt[j] = scale * std::sqrt(predicted[j].variance);
  }

  auto feasible_ei = [&](std::size_t j) {
    return expected_improvement(mean_lt[j], sd_lt[j], best_log_time, options_.xi * scale) * feasible[j];
  };
  double best_score = 0.0;
  std::optional<std::size_t> pick;
  if (options_.acquisition == BayesOptions::Acquisition::hedge) {
    // Reward last round's nominees with minus their updated standardised mean.
    if (nominees_.size() > 0) {
      Eigen::VectorXd now, unused;
      post->predict_at(nominees_, model_y, now, unused);
      std::vector<double> rewards;
      for (const double m : now) rewards.push_back(-m);
      hedge_.reward(rewards);
    }
    // Each arm's nominee: EI, PI and LCB, all times P(feasible) (LCB as a
    // penalty: an unlikely-feasible config's bound is pushed up).
    std::array<std::optional<std::size_t>, 3> arm{};
    std::array<double, 3> arm_score{0.0, 0.0, -std::numeric_limits<double>::infinity()};
    double pi_z = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < free.size(); ++j) {
      const double ei = feasible_ei(j);
      const double pi =
          probability_of_improvement(mean_lt[j], sd_lt[j], best_log_time, options_.xi * scale) * feasible[j];
      const double lcb = -(lower_confidence_bound(mean_lt[j], sd_lt[j], options_.lcb_kappa) - best_log_time) /
                             scale * feasible[j] -
                         (1.0 - feasible[j]) * 10.0;
      if (ei > arm_score[0]) arm_score[0] = ei, arm[0] = j;
      // PI saturates at 1 far below the best; break those ties by the z-score.
      const double z = sd_lt[j] > 0.0 ? (best_log_time - options_.xi * scale - mean_lt[j]) / sd_lt[j] : 0.0;
      if (pi > arm_score[1] || (pi == arm_score[1] && arm[1] && z > pi_z)) arm_score[1] = pi, arm[1] = j, pi_z = z;
      if (lcb > arm_score[2]) arm_score[2] = lcb, arm[2] = j;
    }
    std::vector<Eigen::Index> nominated;
    for (const auto& a : arm) nominated.push_back(free[a.value_or(0)]);
    nominees_ = points_.subset(nominated);
    const std::size_t chosen = hedge_.choose(*engine_);
    if (arm[chosen]) return static_cast<std::size_t>(nominated[chosen]);
  }
  for (std::size_t j = 0; j < free.size(); ++j) {
    const double score = feasible_ei(j);
    if (score > best_score) best_score = score, pick = j;
  }
  if (!pick || best_score < 1e-12 * scale) {
    // EI vanished: take the most optimistic config among those likely to run.
    const double p_max = *std::max_element(feasible.begin(), feasible.end());
    double best_bound = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < free.size(); ++j) {
      if (feasible[j] < 0.5 * p_max) continue;
      const double bound = lower_confidence_bound(mean_lt[j], sd_lt[j], 2.0);
      if (bound < best_bound) best_bound = bound, pick = j;
    }
  }
  return static_cast<std::size_t>(free[*pick]);
}

} // namespace memtune::search

namespace memtune::search {

std::vector<double> BayesianSearch::feasibility(const std::vector<Eigen::Index>& observed,
                                                const std::vector<Eigen::Index>& free, bool cached) {
  constexpr double floor = 1e-3; // no region ruled out for good by a model that can be wrong
  std::vector<bool> ok;
  for (const Eigen::Index r : observed) ok.push_back(observed_.at(static_cast<std::size_t>(r)).has_value());
  const double p0 = FeasibilityModel::success_prior(ok);
  std::vector<Eigen::Index> where(grid_.size(), -1);
  std::vector<Eigen::Index> model_rows; // the candidate of each posterior observation
  std::optional<CandidatePosterior> local;
  CandidatePosterior* post = nullptr;
  if (cached) {
    if (!feasibility_cache_ || feasibility_cache_->candidates() != points_.size())
      feasibility_cache_.emplace(feasibility_kernel_, points_);
    std::vector<bool> in(grid_.size(), false);
    for (const Eigen::Index r : feasibility_cache_->rows()) in[static_cast<std::size_t>(r)] = true;
    for (const Eigen::Index r : observed)
      if (!in[static_cast<std::size_t>(r)]) feasibility_cache_->add(r);
    for (std::size_t i = 0; i < grid_.size(); ++i) where[i] = static_cast<Eigen::Index>(i);
    model_rows = feasibility_cache_->rows();
    post = &*feasibility_cache_;
  } else {
    feasibility_cache_.reset();
    model_rows = spread_subset(observed, options_.model_points);
    std::vector<Eigen::Index> rows = model_rows;
    rows.insert(rows.end(), free.begin(), free.end());
    for (std::size_t r = 0; r < rows.size(); ++r) where[static_cast<std::size_t>(rows[r])] = static_cast<Eigen::Index>(r);
    local.emplace(feasibility_kernel_, points_.subset(rows));
    std::vector<Eigen::Index> observed_rows(model_rows.size());
    for (std::size_t r = 0; r < model_rows.size(); ++r) observed_rows[r] = static_cast<Eigen::Index>(r);
    local->add_all(observed_rows);
    post = &*local;
  }
  Eigen::VectorXd targets(static_cast<Eigen::Index>(model_rows.size()));
  for (std::size_t r = 0; r < model_rows.size(); ++r)
    targets[static_cast<Eigen::Index>(r)] =
        (observed_.at(static_cast<std::size_t>(model_rows[r])).has_value() ? 1.0 : 0.0) - p0;
  Eigen::VectorXd mean, variance;
  post->predict(targets, mean, variance);
  std::vector<double> p(free.size());
  for (std::size_t j = 0; j < free.size(); ++j)
    p[j] = std::clamp(p0 + mean[where[static_cast<std::size_t>(free[j])]], floor, 1.0);
  return p;
}

} // namespace memtune::search
