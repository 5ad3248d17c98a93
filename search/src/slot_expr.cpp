#include <memtune/search/slot_expr.hpp>

#include "expr_ops.hpp"

#include <algorithm>
#include <limits>

namespace memtune::search {

std::optional<SlotExpr> SlotExpr::bind(const Expr& e, const std::vector<std::string>& slots) {
  SlotExpr s;
  bool unbound = false;
  s.add(e, slots, unbound);
  if (unbound) return std::nullopt;
  return s;
}

int SlotExpr::add(const Expr& e, const std::vector<std::string>& slots, bool& unbound) {
  Node n;
  n.op = e.op();
  if (e.op() == Expr::Op::constant) {
    n.value = e.constant_value();
  } else if (e.op() == Expr::Op::axis) {
    const auto it = std::find(slots.begin(), slots.end(), e.name());
    if (it == slots.end()) unbound = true;
    n.value = it - slots.begin();
  } else if (e.op() != Expr::Op::label) { // a label stays a node that fails, as eval throws
    const auto& args = e.args();
    // A shared sub-tree is added once per use, as eval walks it once per use.
    if (args.size() > 0) n.a = add(*args[0], slots, unbound);
    if (args.size() > 1) n.b = add(*args[1], slots, unbound);
    if (args.size() > 2) n.c = add(*args[2], slots, unbound);
  }
  nodes_.push_back(n);
  return static_cast<int>(nodes_.size()) - 1;
}

std::optional<std::int64_t> SlotExpr::try_eval(std::span<const std::int64_t> values) const {
  std::int64_t out = 0;
  if (nodes_.empty() || !eval(static_cast<int>(nodes_.size()) - 1, values, out)) return std::nullopt;
  return out;
}

// The same operations, order and short-circuits as Expr::eval; false where it throws.
bool SlotExpr::eval(int node, std::span<const std::int64_t> values, std::int64_t& out) const {
  const Node& n = nodes_[static_cast<std::size_t>(node)];
  using Op = Expr::Op;
  std::int64_t a = 0, b = 0;
  switch (n.op) {
  case Op::constant: out = n.value; return true;
  case Op::axis:
    if (static_cast<std::size_t>(n.value) >= values.size()) return false;
    out = values[static_cast<std::size_t>(n.value)];
    return true;
  case Op::label: return false;
  case Op::land:
    if (!eval(n.a, values, a)) return false;
    if (a == 0) return out = 0, true;
    if (!eval(n.b, values, b)) return false;
    return out = b != 0 ? 1 : 0, true;
  case Op::lor:
    if (!eval(n.a, values, a)) return false;
    if (a != 0) return out = 1, true;
    if (!eval(n.b, values, b)) return false;
    return out = b != 0 ? 1 : 0, true;
  case Op::select:
    if (!eval(n.a, values, a)) return false;
    return eval(a != 0 ? n.b : n.c, values, out);
  case Op::lnot:
    if (!eval(n.a, values, a)) return false;
    return out = a == 0 ? 1 : 0, true;
  case Op::neg:
    if (!eval(n.a, values, a) || a == std::numeric_limits<std::int64_t>::min()) return false;
    return out = -a, true;
  default: break;
  }
  if (!eval(n.a, values, a) || !eval(n.b, values, b)) return false;
  switch (n.op) {
  case Op::add: return !__builtin_add_overflow(a, b, &out);
  case Op::sub: return !__builtin_sub_overflow(a, b, &out);
  case Op::mul: return !__builtin_mul_overflow(a, b, &out);
  case Op::div:
  case Op::mod:
  case Op::ceil_div:
    if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min())) return false;
    out = n.op == Op::div ? a / b : n.op == Op::mod ? a % b : ceil_div_value(a, b);
    return true;
  case Op::min: return out = std::min(a, b), true;
  case Op::max: return out = std::max(a, b), true;
  case Op::bit_and: return out = a & b, true;
  case Op::bit_xor: return out = a ^ b, true;
  case Op::lt: return out = a < b, true;
  case Op::le: return out = a <= b, true;
  case Op::eq: return out = a == b, true;
  case Op::ne: return out = a != b, true;
  case Op::ge: return out = a >= b, true;
  case Op::gt: return out = a > b, true;
  default: return false;
  }
}

} // namespace memtune::search
