// Rewrites of an expression tree: the names it reads, names replaced by
// values or other expressions (with constant folding), labels resolved.
#include <memtune/search/expr.hpp>

#include "expr_ops.hpp"

#include <algorithm>
#include <stdexcept>

namespace memtune::search {

void Expr::collect_axes(std::vector<std::string>& out) const {
  if (op_ == Op::axis) out.push_back(name_);
  for (const auto& a : args_) a->collect_axes(out);
}

Expr Expr::substitute(const std::function<std::optional<Expr>(const std::string& name)>& replacement) const {
  switch (op_) {
  case Op::constant:
  case Op::label: return *this;
  case Op::axis: {
    std::optional<Expr> r = replacement(name_);
    return r ? std::move(*r) : *this;
  }
  default: break;
  }
  std::vector<Expr> args;
  args.reserve(args_.size());
  for (const auto& a : args_) args.push_back(a->substitute(replacement));
  // What C's short-circuit makes constant even when the other side is not.
  if (op_ == Op::land && args[0].is_constant() && args[0].value_ == 0) return Expr(0);
  if (op_ == Op::lor && args[0].is_constant() && args[0].value_ != 0) return Expr(1);
  if (op_ == Op::select && args[0].is_constant()) return args[0].value_ != 0 ? args[1] : args[2];
  Expr folded = node(op_, std::move(args));
  const bool all_constant = std::all_of(folded.args_.begin(), folded.args_.end(),
                                        [](const auto& a) { return a->is_constant(); });
  if (!all_constant) return folded;
  try {
    return Expr(folded.eval(Config{}));
  } catch (const std::exception&) {
    return folded; // x / 0 stays as it is: evaluating it later says what is wrong, where
  }
}

Expr Expr::resolve_labels(
    const std::function<std::optional<std::vector<std::string>>(const std::string& name)>& labels_of) const {
  if (op_ == Op::label)
    throw std::invalid_argument("the label \"" + name_ + "\" can only be compared (== or !=) with an enumeration");
  if ((op_ == Op::eq || op_ == Op::ne) &&
      (args_[0]->op_ == Op::label || args_[1]->op_ == Op::label)) {
    const bool label_first = args_[0]->op_ == Op::label;
    const Expr& text = label_first ? *args_[0] : *args_[1];
    const Expr& other = label_first ? *args_[1] : *args_[0];
    if (other.op_ != Op::axis)
      throw std::invalid_argument("the label \"" + text.name_ + "\" must be compared with the name of an enumeration, not with " +
                                  other.to_string());
    const std::optional<std::vector<std::string>> labels = labels_of(other.name_);
    if (!labels)
      throw std::invalid_argument("the label \"" + text.name_ + "\" is compared with '" + other.name_ +
                                  "', which is not an enumeration");
    const auto it = std::find(labels->begin(), labels->end(), text.name_);
    if (it == labels->end()) {
      std::string known;
      for (const auto& l : *labels) known += (known.empty() ? "" : ", ") + l;
      throw std::invalid_argument("\"" + text.name_ + "\" is not a label of '" + other.name_ + "' (labels: " + known + ")");
    }
    const Expr index(static_cast<std::int64_t>(it - labels->begin()));
    return label_first ? node(op_, {index, other}) : node(op_, {other, index});
  }
  if (args_.empty()) return *this;
  std::vector<Expr> args;
  args.reserve(args_.size());
  for (const auto& a : args_) args.push_back(a->resolve_labels(labels_of));
  return node(op_, std::move(args));
}

} // namespace memtune::search
