#include <memtune/search/encoding.hpp>

namespace memtune::search {

Points Points::subset(const std::vector<Eigen::Index>& rows) const {
  Points out = zeros(static_cast<Eigen::Index>(rows.size()), ordinal.cols(), categorical.cols());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto i = static_cast<Eigen::Index>(r);
    out.ordinal.row(i) = ordinal.row(rows[r]);
    out.categorical.row(i) = categorical.row(rows[r]);
  }
  return out;
}

Points Points::zeros(Eigen::Index n, Eigen::Index ordinal_axes, Eigen::Index categorical_axes) {
  return {Eigen::MatrixXd::Zero(n, ordinal_axes), Eigen::MatrixXi::Zero(n, categorical_axes)};
}

Encoder::Encoder(const Space& space) {
  for (const Axis& a : space.axes()) {
    auto& kind = a.kind == AxisKind::ordinal ? ordinal_ : categorical_;
    columns_.push_back({a.kind == AxisKind::ordinal, static_cast<Eigen::Index>(kind.size()), a.values.size()});
    kind.push_back(a);
  }
}

Points Encoder::encode(const std::vector<Config>& configs) const {
  Points p = Points::zeros(static_cast<Eigen::Index>(configs.size()), ordinal_axes(), categorical_axes());
  for (std::size_t r = 0; r < configs.size(); ++r) {
    const auto i = static_cast<Eigen::Index>(r);
    for (std::size_t c = 0; c < ordinal_.size(); ++c) {
      const Axis& a = ordinal_[c];
      const double steps = static_cast<double>(a.values.size() - 1);
      const double position = static_cast<double>(a.index_of(configs[r].at(a.name)));
      p.ordinal(i, static_cast<Eigen::Index>(c)) = steps > 0 ? position / steps : 0.0;
    }
    for (std::size_t c = 0; c < categorical_.size(); ++c) {
      const Axis& a = categorical_[c];
      p.categorical(i, static_cast<Eigen::Index>(c)) = static_cast<int>(a.index_of(configs[r].at(a.name)));
    }
  }
  return p;
}

Points Encoder::encode_indices(const std::vector<std::size_t>& indices) const {
  Points p = Points::zeros(static_cast<Eigen::Index>(indices.size()), ordinal_axes(), categorical_axes());
  for (std::size_t r = 0; r < indices.size(); ++r) {
    const auto i = static_cast<Eigen::Index>(r);
    std::size_t index = indices[r];
    // The last axis varies fastest (Space::at_index): its digit is the remainder.
    for (auto c = columns_.rbegin(); c != columns_.rend(); ++c) {
      const std::size_t position = index % c->values;
      index /= c->values;
      if (c->ordinal)
        p.ordinal(i, c->column) = c->values > 1 ? static_cast<double>(position) / static_cast<double>(c->values - 1) : 0.0;
      else
        p.categorical(i, c->column) = static_cast<int>(position);
    }
  }
  return p;
}

std::vector<std::size_t> Encoder::category_counts() const {
  std::vector<std::size_t> counts;
  for (const Axis& a : categorical_) counts.push_back(a.values.size());
  return counts;
}

} // namespace memtune::search
