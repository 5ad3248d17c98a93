#include <memtune/search/expr.hpp>

#include "expr_ops.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace memtune::search {
namespace {

constexpr std::array<CmpName, 6> kCmps{{{Constraint::Cmp::lt, "<", Expr::Op::lt},
                                        {Constraint::Cmp::le, "<=", Expr::Op::le},
                                        {Constraint::Cmp::eq, "==", Expr::Op::eq},
                                        {Constraint::Cmp::ne, "!=", Expr::Op::ne},
                                        {Constraint::Cmp::ge, ">=", Expr::Op::ge},
                                        {Constraint::Cmp::gt, ">", Expr::Op::gt}}};

const CmpName& cmp_info(Constraint::Cmp cmp) {
  for (const auto& c : kCmps)
    if (c.cmp == cmp) return c;
  throw std::logic_error("comparison has no symbol");
}

// An expression in a message: a huge one is cut (its whole text helps nobody).
std::string shown(const Expr& e) {
  constexpr std::size_t kMaxChars = 200;
  std::string text = e.to_string();
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return text;
}

[[noreturn]] void overflow(const Expr& e) {
  throw std::domain_error("expression " + shown(e) + ": integer overflow (values are 64-bit)");
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

} // namespace

const OpInfo& op_info(Expr::Op op) {
  for (const auto& o : kOps)
    if (o.op == op) return o;
  throw std::logic_error("expression operator has no symbol");
}

const OpInfo* op_by_symbol(std::string_view symbol) {
  for (const auto& o : kOps)
    if (symbol == o.symbol) return &o;
  return nullptr;
}

bool is_comparison(Expr::Op op) {
  return op == Expr::Op::lt || op == Expr::Op::le || op == Expr::Op::eq || op == Expr::Op::ne ||
         op == Expr::Op::ge || op == Expr::Op::gt;
}

std::int64_t ceil_div_value(std::int64_t a, std::int64_t b) {
  // Truncating division, then one up when the exact quotient is positive and
  // not whole (so ceil_div(-7, 2) == -3, like the mathematics).
  const std::int64_t q = a / b;
  const std::int64_t r = a % b;
  return (r != 0 && ((r > 0) == (b > 0))) ? q + 1 : q;
}

Expr::Expr(std::int64_t value) : value_(value) {}

Expr Expr::node(Op op, std::vector<Expr> args) {
  Expr e;
  e.op_ = op;
  int deepest = 0;
  std::int64_t size = 1;
  for (const auto& a : args) {
    deepest = std::max(deepest, a.depth_);
    size += a.size_; // each at most kMaxExprSize: no overflow
  }
  if (size > kMaxExprSize)
    throw ExprTooLarge("the expression expands to more than " + std::to_string(kMaxExprSize) +
                       " terms (a value read twice at each of many levels: nested round_up or derived values)");
  e.args_.reserve(args.size());
  for (auto& a : args) e.args_.push_back(std::make_shared<const Expr>(std::move(a)));
  e.depth_ = deepest + 1;
  e.size_ = size;
  return e;
}

Expr Expr::axis(std::string name) {
  if (name.empty()) throw std::invalid_argument("expression: empty axis name");
  Expr e;
  e.op_ = Op::axis;
  e.name_ = std::move(name);
  return e;
}

Expr Expr::label(std::string text) {
  Expr e;
  e.op_ = Op::label;
  e.name_ = std::move(text);
  return e;
}

Expr Expr::apply(Op op, Expr lhs, Expr rhs) {
  if (op_info(op).arity != 2)
    throw std::invalid_argument(std::string("expression: '") + op_info(op).symbol + "' does not take two operands");
  return node(op, {std::move(lhs), std::move(rhs)});
}

Expr Expr::unary(Op op, Expr arg) {
  if (op != Op::lnot && op != Op::neg) throw std::invalid_argument("expression: unary takes lnot or neg");
  // -literal is a negative literal, so that to_string and the parser agree.
  if (op == Op::neg && arg.is_constant() && arg.value_ != std::numeric_limits<std::int64_t>::min())
    return Expr(-arg.value_);
  return node(op, {std::move(arg)});
}

Expr Expr::select(Expr condition, Expr then, Expr otherwise) {
  return node(Op::select, {std::move(condition), std::move(then), std::move(otherwise)});
}

std::int64_t Expr::eval(const Config& config) const {
  switch (op_) {
  case Op::constant: return value_;
  case Op::axis: return config.at(name_);
  case Op::label:
    throw std::invalid_argument("expression: the label " + quoted(name_) +
                                " was not resolved (compare it with == or != to an enumeration)");
  // Short-circuit like C, so that `b != 0 && a / b > 2` never divides by zero.
  case Op::land: return (args_[0]->eval(config) != 0 && args_[1]->eval(config) != 0) ? 1 : 0;
  case Op::lor: return (args_[0]->eval(config) != 0 || args_[1]->eval(config) != 0) ? 1 : 0;
  case Op::select: return args_[0]->eval(config) != 0 ? args_[1]->eval(config) : args_[2]->eval(config);
  case Op::lnot: return args_[0]->eval(config) == 0 ? 1 : 0;
  case Op::neg: {
    const std::int64_t a = args_[0]->eval(config);
    if (a == std::numeric_limits<std::int64_t>::min()) overflow(*this);
    return -a;
  }
  default: break;
  }
  const std::int64_t a = args_[0]->eval(config);
  const std::int64_t b = args_[1]->eval(config);
  std::int64_t r = 0;
  switch (op_) {
  case Op::add:
    if (__builtin_add_overflow(a, b, &r)) overflow(*this);
    return r;
  case Op::sub:
    if (__builtin_sub_overflow(a, b, &r)) overflow(*this);
    return r;
  case Op::mul:
    if (__builtin_mul_overflow(a, b, &r)) overflow(*this);
    return r;
  case Op::div:
  case Op::mod:
  case Op::ceil_div:
    if (b == 0) throw std::domain_error("expression " + shown(*this) + ": division by zero");
    if (b == -1 && a == std::numeric_limits<std::int64_t>::min()) overflow(*this);
    return op_ == Op::div ? a / b : op_ == Op::mod ? a % b : ceil_div_value(a, b);
  case Op::min: return std::min(a, b);
  case Op::max: return std::max(a, b);
  case Op::bit_and: return a & b;
  case Op::bit_xor: return a ^ b;
  case Op::lt: return a < b;
  case Op::le: return a <= b;
  case Op::eq: return a == b;
  case Op::ne: return a != b;
  case Op::ge: return a >= b;
  case Op::gt: return a > b;
  default: throw std::logic_error("unreachable expression operator");
  }
}

std::string Expr::to_string() const {
  switch (op_) {
  case Op::constant:
    // The parser reads -9223372036854775808 too, but only as a negated literal.
    return std::to_string(value_);
  case Op::axis: return name_;
  case Op::label: return quoted(name_);
  case Op::min:
  case Op::max:
  case Op::ceil_div:
  case Op::bit_and:
  case Op::bit_xor:
    return std::string(op_info(op_).symbol) + "(" + args_[0]->to_string() + ", " + args_[1]->to_string() + ")";
  case Op::lnot: return "!" + args_[0]->to_string();
  case Op::neg: return "(-" + args_[0]->to_string() + ")";
  case Op::select:
    return "(" + args_[0]->to_string() + " ? " + args_[1]->to_string() + " : " + args_[2]->to_string() + ")";
  default: return "(" + args_[0]->to_string() + " " + op_info(op_).symbol + " " + args_[1]->to_string() + ")";
  }
}

nlohmann::json Expr::to_json() const {
  switch (op_) {
  case Op::constant: return value_;
  case Op::axis: return name_;
  case Op::label: return {{"op", "label"}, {"args", {name_}}};
  default: break;
  }
  nlohmann::json args = nlohmann::json::array();
  for (const auto& a : args_) args.push_back(a->to_json());
  return {{"op", op_info(op_).symbol}, {"args", std::move(args)}};
}

namespace {

// Recursion is bounded by kMaxExprDepth, so a hostile document (30000 nested
// objects) is an error, never a stack overflow. Messages never dump `j`: it
// may be that deep.
Expr expr_from_json(const nlohmann::json& j, int depth) {
  if (depth > kMaxExprDepth)
    throw std::invalid_argument("expression: nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw std::invalid_argument("expression: the integer " + j.dump() + " does not fit in 64 bits");
    return Expr(j.get<std::int64_t>());
  }
  if (j.is_string()) return Expr::axis(j.get<std::string>());
  if (!j.is_object() || !j.contains("op") || !j.contains("args"))
    throw std::invalid_argument("expression: expected an integer, a name or {op, args}, got a JSON " +
                                std::string(j.type_name()));
  if (!j.at("op").is_string()) throw std::invalid_argument("expression: 'op' must be a string");
  const std::string symbol = j.at("op").get<std::string>();
  const auto& args = j.at("args");
  const OpInfo* info = op_by_symbol(symbol);
  if (!info || info->op == Expr::Op::constant || info->op == Expr::Op::axis)
    throw std::invalid_argument("expression: unknown operator '" + symbol + "'");
  if (!args.is_array() || static_cast<int>(args.size()) != info->arity)
    throw std::invalid_argument("expression: '" + symbol + "' needs 'args', an array of " +
                                std::to_string(info->arity) + (info->arity == 1 ? " expression" : " expressions"));
  if (j.size() != 2) throw std::invalid_argument("expression: an operator object has only 'op' and 'args'");
  if (info->op == Expr::Op::label) {
    if (!args[0].is_string()) throw std::invalid_argument("expression: a label's argument must be a string");
    return Expr::label(args[0].get<std::string>());
  }
  std::vector<Expr> operands;
  for (const auto& a : args) operands.push_back(expr_from_json(a, depth + 1));
  switch (info->arity) {
  case 1: return Expr::unary(info->op, std::move(operands[0]));
  case 2: return Expr::apply(info->op, std::move(operands[0]), std::move(operands[1]));
  default: return Expr::select(std::move(operands[0]), std::move(operands[1]), std::move(operands[2]));
  }
}

} // namespace

Expr Expr::from_json(const nlohmann::json& j) { return expr_from_json(j, 1); }

Expr operator+(Expr a, Expr b) { return Expr::apply(Expr::Op::add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return Expr::apply(Expr::Op::sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return Expr::apply(Expr::Op::mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return Expr::apply(Expr::Op::div, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return Expr::apply(Expr::Op::mod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return Expr::apply(Expr::Op::min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return Expr::apply(Expr::Op::max, std::move(a), std::move(b)); }
Expr ceil_div(Expr a, Expr b) { return Expr::apply(Expr::Op::ceil_div, std::move(a), std::move(b)); }

Constraint::Constraint(Expr lhs, Cmp cmp, Expr rhs, std::string reason)
    : lhs_(std::move(lhs)), rhs_(std::move(rhs)), cmp_(cmp), reason_(std::move(reason)) {}

Constraint Constraint::from_expr(const Expr& condition, std::string reason) {
  for (const auto& c : kCmps)
    if (condition.op() == c.op) return {*condition.args()[0], c.cmp, *condition.args()[1], std::move(reason)};
  return {condition, Cmp::ne, 0, std::move(reason)};
}

bool Constraint::holds(const Config& config) const {
  if (condition_ && !condition_->holds(config)) return true;
  std::int64_t a = 0, b = 0;
  try {
    a = lhs_.eval(config);
    b = rhs_.eval(config);
  } catch (const std::domain_error& e) {
    if (where_.empty()) throw;
    throw std::domain_error(where_ + ": " + e.what());
  }
  switch (cmp_) {
  case Cmp::lt: return a < b;
  case Cmp::le: return a <= b;
  case Cmp::eq: return a == b;
  case Cmp::ne: return a != b;
  case Cmp::ge: return a >= b;
  case Cmp::gt: return a > b;
  }
  return false;
}

Constraint Constraint::located(std::string where) const {
  Constraint c = *this;
  c.where_ = std::move(where);
  return c;
}

Constraint Constraint::because(std::string reason) const {
  Constraint c = *this;
  c.reason_ = std::move(reason);
  return c;
}

Constraint Constraint::duplicates_of(std::vector<std::pair<std::string, std::int64_t>> settings) const {
  Constraint c = *this;
  c.duplicate_settings_ = std::move(settings);
  return c;
}

Constraint Constraint::implies(Constraint condition, Constraint then) {
  Constraint c = std::move(then);
  c.condition_ = std::make_shared<const Constraint>(std::move(condition));
  return c;
}

Constraint Constraint::substitute(const std::function<std::optional<Expr>(const std::string& name)>& replacement) const {
  Constraint c(lhs_.substitute(replacement), cmp_, rhs_.substitute(replacement), reason_);
  c.where_ = where_;
  c.duplicate_settings_ = duplicate_settings_;
  if (condition_) c.condition_ = std::make_shared<const Constraint>(condition_->substitute(replacement));
  return c;
}

void Constraint::collect_axes(std::vector<std::string>& out) const {
  if (condition_) condition_->collect_axes(out);
  lhs_.collect_axes(out);
  rhs_.collect_axes(out);
}

std::string Constraint::to_string() const {
  std::string s = lhs_.to_string() + " " + cmp_info(cmp_).symbol + " " + rhs_.to_string();
  if (condition_) s = "if " + condition_->to_string() + " then " + s;
  return s;
}

nlohmann::json Constraint::to_json() const {
  nlohmann::json j{{"lhs", lhs_.to_json()}, {"cmp", cmp_info(cmp_).symbol}, {"rhs", rhs_.to_json()}};
  if (!reason_.empty()) j["reason"] = reason_;
  if (condition_) j["if"] = condition_->to_json();
  return j;
}

namespace {

Constraint constraint_from_json(const nlohmann::json& j, int depth) {
  if (depth > kMaxExprDepth)
    throw std::invalid_argument("constraint: implications nested deeper than " + std::to_string(kMaxExprDepth));
  if (!j.is_object() || !j.contains("lhs") || !j.contains("cmp") || !j.contains("rhs"))
    throw std::invalid_argument("constraint: expected {lhs, cmp, rhs}, got a JSON " + std::string(j.type_name()));
  if (!j.at("cmp").is_string() || (j.contains("reason") && !j.at("reason").is_string()))
    throw std::invalid_argument("constraint: 'cmp' and 'reason' must be strings");
  const std::string symbol = j.at("cmp").get<std::string>();
  for (const auto& c : kCmps) {
    if (symbol != c.symbol) continue;
    Constraint out(Expr::from_json(j.at("lhs")), c.cmp, Expr::from_json(j.at("rhs")), j.value("reason", std::string{}));
    if (j.contains("if")) return Constraint::implies(constraint_from_json(j.at("if"), depth + 1), out);
    return out;
  }
  throw std::invalid_argument("constraint: unknown comparison '" + symbol + "'");
}

} // namespace

Constraint Constraint::from_json(const nlohmann::json& j) { return constraint_from_json(j, 1); }

Constraint operator<(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::lt, std::move(b)}; }
Constraint operator<=(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::le, std::move(b)}; }
Constraint operator==(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::eq, std::move(b)}; }
Constraint operator!=(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::ne, std::move(b)}; }
Constraint operator>=(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::ge, std::move(b)}; }
Constraint operator>(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::gt, std::move(b)}; }

} // namespace memtune::search
