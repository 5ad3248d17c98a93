#include <memtune/report/analysis.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace memtune::report {
namespace {

// Quantile q of sorted values, linear interpolation.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// log C(n, k) through lgamma: exact enough for the ratios taken here.
double log_choose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

} // namespace

std::vector<AxisEffect> axis_effects(const Run& run) {
  std::vector<AxisEffect> out;
  for (const search::Axis& axis : run.space.axes()) {
    AxisEffect effect;
    effect.axis = axis.name;
    double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    for (const std::int64_t v : axis.values) {
      ValueEffect ve;
      ve.label = axis.format(v);
      std::vector<double> times;
      for (const auto& t : run.trials) {
        if (!t.config.has(axis.name) || t.config.at(axis.name) != v) continue;
        if (t.ok()) times.push_back(*t.time_s);
        else ++ve.failed;
      }
      ve.ok = times.size();
      if (!times.empty()) {
        std::sort(times.begin(), times.end());
        ve.best_s = times.front();
        ve.q1_s = quantile(times, 0.25);
        ve.median_s = quantile(times, 0.5);
        ve.q3_s = quantile(times, 0.75);
        lo = std::min(lo, *ve.best_s);
        hi = std::max(hi, *ve.best_s);
      }
      effect.values.push_back(std::move(ve));
    }
    if (hi == 0.0) continue; // no ok trial on this axis
    effect.best_ratio = hi / lo;
    out.push_back(std::move(effect));
  }
  return out;
}

std::vector<std::optional<double>> best_so_far(const std::vector<search::Trial>& trials) {
  std::vector<std::optional<double>> out;
  std::optional<double> best;
  for (const auto& t : trials) {
    if (t.ok() && (!best || *t.time_s < *best)) best = t.time_s;
    out.push_back(best);
  }
  return out;
}

QuantileCurve random_search_quantiles(const Run& run) {
  std::vector<double> ok;
  for (const auto& t : run.trials)
    if (t.ok()) ok.push_back(*t.time_s);
  std::sort(ok.begin(), ok.end());
  const auto n = static_cast<double>(run.trials.size());
  QuantileCurve q;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t k = 1; k <= run.trials.size(); ++k) {
    const auto kd = static_cast<double>(k);
    // The smallest m (the m fastest ok configs) with P(one of them in k draws) >= p.
    auto at = [&](double p) {
      for (std::size_t m = 1; m <= ok.size(); ++m) {
        const auto md = static_cast<double>(m);
        const double miss = n - md < kd ? 0.0 : std::exp(log_choose(n - md, kd) - log_choose(n, kd));
        if (1.0 - miss >= p - 1e-12) return ok[m - 1];
      }
      return inf;
    };
    q.q1_s.push_back(at(0.25)); // a quarter of the orders have found this fast a config by now
    q.median_s.push_back(at(0.5));
    q.q3_s.push_back(at(0.75));
  }
  return q;
}

std::vector<Pair> paired_times(const Run& a, const Run& b) {
  std::map<std::string, double> times;
  for (const auto& t : b.trials)
    if (t.ok()) times[b.space.config_to_json(t.config).dump()] = *t.time_s;
  std::vector<Pair> out;
  for (const auto& t : a.trials) {
    if (!t.ok()) continue;
    const auto it = times.find(a.space.config_to_json(t.config).dump());
    if (it != times.end()) out.push_back({a.space.format(t.config), *t.time_s, it->second});
  }
  return out;
}

std::vector<std::size_t> pareto_front(const std::vector<EnergyPoint>& points) {
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].time_s != points[b].time_s) return points[a].time_s < points[b].time_s;
    return points[a].joules != points[b].joules ? points[a].joules < points[b].joules : a < b;
  });
  // Fastest first: a point is on the front when it takes fewer joules than
  // every faster one (or as few as the last on it at the same time).
  std::vector<std::size_t> front;
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    const EnergyPoint& p = points[i];
    const bool tie = !front.empty() && points[front.back()].time_s == p.time_s && points[front.back()].joules == p.joules;
    if (p.joules < least || tie) {
      front.push_back(i);
      least = std::min(least, p.joules);
    }
  }
  return front;
}

EnergyFront energy_front(const Run& run) {
  EnergyFront f;
  for (std::size_t i = 0; i < run.trials.size() && i < run.joules_per_launch.size(); ++i)
    if (run.trials[i].ok() && run.joules_per_launch[i])
      f.points.push_back({run.space.format(run.trials[i].config), *run.trials[i].time_s, *run.joules_per_launch[i]});
  f.front = pareto_front(f.points);
  return f;
}

} // namespace memtune::report
