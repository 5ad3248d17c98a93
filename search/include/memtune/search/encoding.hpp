#pragma once
// Coordinates of configs, for the surrogate models.
//
// Ordinal axis: the value's position on the axis, normalised to [0, 1]
// (i / (k - 1); 0 when the axis has one value). Block sizes {32, ..., 1024}
// map to 0, 0.2, ..., 1 -- the same as normalised log2, because such axes are
// complete runs of powers of two -- while gapped or non-geometric axes
// (padding {0, 1, 2, 4, 8}, taps) still get "one notch = one step", which is
// how a kernel parameter's effect usually scales. One rule for every ordinal
// axis, and one set of length-scale bounds that means the same on each.
//
// Categorical axis: the label's index, compared only for equality.
#include <memtune/search/config.hpp>
#include <memtune/search/space.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <vector>

namespace memtune::search {

// A batch of encoded points: row r of both matrices is point r.
struct Points {
  Eigen::MatrixXd ordinal;     // points x ordinal axes, each in [0, 1]
  Eigen::MatrixXi categorical; // points x categorical axes, label indices

  [[nodiscard]] Eigen::Index size() const { return ordinal.rows(); }
  // The points at the given rows, in that order.
  [[nodiscard]] Points subset(const std::vector<Eigen::Index>& rows) const;
  // A batch of `n` points with the given numbers of axes, all zero.
  static Points zeros(Eigen::Index n, Eigen::Index ordinal_axes, Eigen::Index categorical_axes);
};

class Encoder {
public:
  explicit Encoder(const Space& space);

  // Precondition: every config has a value on each axis of the space
  // (throws std::out_of_range naming the axis otherwise).
  [[nodiscard]] Points encode(const std::vector<Config>& configs) const;
  // The same for configs given by their cross-product indices
  // (Space::at_index), without building them: a search scoring thousands of
  // sampled configs per step encodes them from the index's digits.
  // Precondition: each index < the space's cross_product_size().
  [[nodiscard]] Points encode_indices(const std::vector<std::size_t>& indices) const;

  [[nodiscard]] Eigen::Index ordinal_axes() const { return static_cast<Eigen::Index>(ordinal_.size()); }
  [[nodiscard]] Eigen::Index categorical_axes() const { return static_cast<Eigen::Index>(categorical_.size()); }
  // Number of labels of each categorical axis, in column order.
  [[nodiscard]] std::vector<std::size_t> category_counts() const;

private:
  std::vector<Axis> ordinal_;
  std::vector<Axis> categorical_;
  // Per axis of the space, in its order: ordinal or not, and the column.
  struct Column {
    bool ordinal;
    Eigen::Index column;
    std::size_t values;
  };
  std::vector<Column> columns_;
};

} // namespace memtune::search
