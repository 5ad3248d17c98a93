#pragma once
// Integer expressions over axis values, and constraints built from them.
//
// Constraints are typed data, never strings handed to an evaluator: they are
// built in C++ with operators, evaluated on a Config, printed for people and
// round-tripped through JSON.
//
//   using namespace memtune::search;
//   Constraint c = (axis("block_size") * axis("items") <= 8192).because("tile fits");
//   c.holds(Config{{"block_size", 256}, {"items", 4}});   // true
//
// JSON: a number, an axis name, or {"op": "*", "args": [a, b]}; a constraint
// is {"lhs": ..., "cmp": "<=", "rhs": ..., "reason": "..."}.
#include <memtune/search/config.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memtune::search {

class Expr {
public:
  enum class Op { constant, axis, add, sub, mul, div, mod, min, max };

  Expr(std::int64_t value); // NOLINT(google-explicit-constructor): literals read naturally in constraints
  static Expr axis(std::string name);
  static Expr apply(Op op, Expr lhs, Expr rhs);

  // Throws std::out_of_range for a missing axis, std::domain_error for x/0.
  [[nodiscard]] std::int64_t eval(const Config& config) const;
  [[nodiscard]] std::string to_string() const;
  [[nodiscard]] nlohmann::json to_json() const;
  static Expr from_json(const nlohmann::json& j); // throws std::invalid_argument

  // Names of the axes the expression reads.
  void collect_axes(std::vector<std::string>& out) const;

private:
  Expr() = default;
  Op op_ = Op::constant;
  std::int64_t value_ = 0;
  std::string name_;
  std::shared_ptr<const Expr> lhs_, rhs_; // immutable children, shared freely
};

inline Expr axis(std::string name) { return Expr::axis(std::move(name)); }
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);

class Constraint {
public:
  enum class Cmp { lt, le, eq, ne, ge, gt };
  Constraint(Expr lhs, Cmp cmp, Expr rhs, std::string reason = {});

  [[nodiscard]] bool holds(const Config& config) const;
  // The same constraint with a human reason attached ("tile fits in 48 KB").
  [[nodiscard]] Constraint because(std::string reason) const;
  [[nodiscard]] const std::string& reason() const { return reason_; }
  [[nodiscard]] std::string to_string() const;
  [[nodiscard]] nlohmann::json to_json() const;
  static Constraint from_json(const nlohmann::json& j); // throws std::invalid_argument

  // An implication: when `condition` holds, `then` must hold too.
  static Constraint implies(Constraint condition, Constraint then);

private:
  Expr lhs_, rhs_;
  Cmp cmp_;
  std::string reason_;
  std::shared_ptr<const Constraint> condition_; // set for implications
};

Constraint operator<(Expr a, Expr b);
Constraint operator<=(Expr a, Expr b);
Constraint operator==(Expr a, Expr b);
Constraint operator!=(Expr a, Expr b);
Constraint operator>=(Expr a, Expr b);
Constraint operator>(Expr a, Expr b);

} // namespace memtune::search
