#include <memtune/model/rank_correlation.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace memtune {
namespace {

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

} // namespace

std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  return pearson(average_ranks(a), average_ranks(b));
}

PairOrder ordered_pairs(const std::vector<double>& measured, const std::vector<double>& predicted, double min_gap) {
  PairOrder out;
  double right = 0;
  for (std::size_t i = 0; i < measured.size(); ++i)
    for (std::size_t j = i + 1; j < measured.size(); ++j) {
      const double faster = std::min(measured[i], measured[j]);
      if (std::abs(measured[i] - measured[j]) <= min_gap * faster) continue;
      ++out.pairs;
      const bool i_first = measured[i] < measured[j];
      if (predicted[i] == predicted[j]) right += 0.5;
      else if ((predicted[i] < predicted[j]) == i_first) right += 1;
    }
  out.fraction = out.pairs > 0 ? right / static_cast<double>(out.pairs) : std::nan("");
  return out;
}

} // namespace memtune
