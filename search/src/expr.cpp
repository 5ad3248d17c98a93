#include <memtune/search/expr.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>

namespace memtune::search {
namespace {

struct OpName {
  Expr::Op op;
  const char* symbol;
};
constexpr std::array<OpName, 7> kOps{{{Expr::Op::add, "+"},
                                      {Expr::Op::sub, "-"},
                                      {Expr::Op::mul, "*"},
                                      {Expr::Op::div, "/"},
                                      {Expr::Op::mod, "%"},
                                      {Expr::Op::min, "min"},
                                      {Expr::Op::max, "max"}}};

const char* symbol_of(Expr::Op op) {
  for (const auto& o : kOps)
    if (o.op == op) return o.symbol;
  throw std::logic_error("expression operator has no symbol");
}

struct CmpName {
  Constraint::Cmp cmp;
  const char* symbol;
};
constexpr std::array<CmpName, 6> kCmps{{{Constraint::Cmp::lt, "<"},
                                        {Constraint::Cmp::le, "<="},
                                        {Constraint::Cmp::eq, "=="},
                                        {Constraint::Cmp::ne, "!="},
                                        {Constraint::Cmp::ge, ">="},
                                        {Constraint::Cmp::gt, ">"}}};

const char* symbol_of(Constraint::Cmp cmp) {
  for (const auto& c : kCmps)
    if (c.cmp == cmp) return c.symbol;
  throw std::logic_error("comparison has no symbol");
}

} // namespace

Expr::Expr(std::int64_t value) : value_(value) {}

Expr Expr::axis(std::string name) {
  if (name.empty()) throw std::invalid_argument("expression: empty axis name");
  Expr e;
  e.op_ = Op::axis;
  e.name_ = std::move(name);
  return e;
}

Expr Expr::apply(Op op, Expr lhs, Expr rhs) {
  if (op == Op::constant || op == Op::axis) throw std::invalid_argument("expression: apply needs an operator");
  Expr e;
  e.op_ = op;
  e.lhs_ = std::make_shared<const Expr>(std::move(lhs));
  e.rhs_ = std::make_shared<const Expr>(std::move(rhs));
  return e;
}

std::int64_t Expr::eval(const Config& config) const {
  switch (op_) {
  case Op::constant: return value_;
  case Op::axis: return config.at(name_);
  default: break;
  }
  const std::int64_t a = lhs_->eval(config);
  const std::int64_t b = rhs_->eval(config);
  // Values come from files (recordings, kernel descriptions): an overflow is
  // an error to report, never undefined behaviour (INT64_MIN / -1 traps).
  std::int64_t r = 0;
  auto overflow = [&] { return std::domain_error("expression " + to_string() + ": integer overflow"); };
  switch (op_) {
  case Op::add:
    if (__builtin_add_overflow(a, b, &r)) throw overflow();
    return r;
  case Op::sub:
    if (__builtin_sub_overflow(a, b, &r)) throw overflow();
    return r;
  case Op::mul:
    if (__builtin_mul_overflow(a, b, &r)) throw overflow();
    return r;
  case Op::div:
    if (b == 0) throw std::domain_error("expression " + to_string() + ": division by zero");
    if (b == -1 && a == INT64_MIN) throw overflow();
    return a / b;
  case Op::mod:
    if (b == 0) throw std::domain_error("expression " + to_string() + ": modulo by zero");
    if (b == -1) return 0; // INT64_MIN % -1 traps on x86
    return a % b;
  case Op::min: return std::min(a, b);
  case Op::max: return std::max(a, b);
  default: throw std::logic_error("unreachable expression operator");
  }
}

std::string Expr::to_string() const {
  switch (op_) {
  case Op::constant: return std::to_string(value_);
  case Op::axis: return name_;
  case Op::min:
  case Op::max: return std::string(symbol_of(op_)) + "(" + lhs_->to_string() + ", " + rhs_->to_string() + ")";
  default: return "(" + lhs_->to_string() + " " + symbol_of(op_) + " " + rhs_->to_string() + ")";
  }
}

nlohmann::json Expr::to_json() const {
  switch (op_) {
  case Op::constant: return value_;
  case Op::axis: return name_;
  default: return {{"op", symbol_of(op_)}, {"args", {lhs_->to_json(), rhs_->to_json()}}};
  }
}

Expr Expr::from_json(const nlohmann::json& j) {
  if (j.is_number_integer()) return Expr(j.get<std::int64_t>());
  if (j.is_string()) return Expr::axis(j.get<std::string>());
  if (j.is_object() && j.contains("op") && j.contains("args")) {
    const auto& args = j.at("args");
    if (!args.is_array() || args.size() != 2)
      throw std::invalid_argument("expression: 'args' must be an array of two expressions in " + j.dump());
    if (!j.at("op").is_string()) throw std::invalid_argument("expression: 'op' must be a string in " + j.dump());
    const std::string symbol = j.at("op").get<std::string>();
    for (const auto& o : kOps)
      if (symbol == o.symbol) return apply(o.op, from_json(args[0]), from_json(args[1]));
    throw std::invalid_argument("expression: unknown operator '" + symbol + "'");
  }
  throw std::invalid_argument("expression: expected an integer, an axis name or {op, args}, got " + j.dump());
}

void Expr::collect_axes(std::vector<std::string>& out) const {
  if (op_ == Op::axis) out.push_back(name_);
  if (lhs_) lhs_->collect_axes(out);
  if (rhs_) rhs_->collect_axes(out);
}

Expr operator+(Expr a, Expr b) { return Expr::apply(Expr::Op::add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return Expr::apply(Expr::Op::sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return Expr::apply(Expr::Op::mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return Expr::apply(Expr::Op::div, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return Expr::apply(Expr::Op::mod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return Expr::apply(Expr::Op::min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return Expr::apply(Expr::Op::max, std::move(a), std::move(b)); }

Constraint::Constraint(Expr lhs, Cmp cmp, Expr rhs, std::string reason)
    : lhs_(std::move(lhs)), rhs_(std::move(rhs)), cmp_(cmp), reason_(std::move(reason)) {}

bool Constraint::holds(const Config& config) const {
  if (condition_ && !condition_->holds(config)) return true;
  const std::int64_t a = lhs_.eval(config);
  const std::int64_t b = rhs_.eval(config);
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

Constraint Constraint::because(std::string reason) const {
  Constraint c = *this;
  c.reason_ = std::move(reason);
  return c;
}

Constraint Constraint::implies(Constraint condition, Constraint then) {
  Constraint c = std::move(then);
  c.condition_ = std::make_shared<const Constraint>(std::move(condition));
  return c;
}

std::string Constraint::to_string() const {
  std::string s = lhs_.to_string() + " " + symbol_of(cmp_) + " " + rhs_.to_string();
  if (condition_) s = "if " + condition_->to_string() + " then " + s;
  return s;
}

nlohmann::json Constraint::to_json() const {
  nlohmann::json j{{"lhs", lhs_.to_json()}, {"cmp", symbol_of(cmp_)}, {"rhs", rhs_.to_json()}};
  if (!reason_.empty()) j["reason"] = reason_;
  if (condition_) j["if"] = condition_->to_json();
  return j;
}

Constraint Constraint::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("lhs") || !j.contains("cmp") || !j.contains("rhs"))
    throw std::invalid_argument("constraint: expected {lhs, cmp, rhs}, got " + j.dump());
  if (!j.at("cmp").is_string() || (j.contains("reason") && !j.at("reason").is_string()))
    throw std::invalid_argument("constraint: 'cmp' and 'reason' must be strings in " + j.dump());
  const std::string symbol = j.at("cmp").get<std::string>();
  for (const auto& c : kCmps) {
    if (symbol != c.symbol) continue;
    Constraint out(Expr::from_json(j.at("lhs")), c.cmp, Expr::from_json(j.at("rhs")), j.value("reason", std::string{}));
    if (j.contains("if")) return implies(from_json(j.at("if")), out);
    return out;
  }
  throw std::invalid_argument("constraint: unknown comparison '" + symbol + "'");
}

Constraint operator<(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::lt, std::move(b)}; }
Constraint operator<=(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::le, std::move(b)}; }
Constraint operator==(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::eq, std::move(b)}; }
Constraint operator!=(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::ne, std::move(b)}; }
Constraint operator>=(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::ge, std::move(b)}; }
Constraint operator>(Expr a, Expr b) { return {std::move(a), Constraint::Cmp::gt, std::move(b)}; }

} // namespace memtune::search
