#pragma once
// Integer expressions over named values, and constraints built from them.
//
// Constraints are typed data, never strings handed to an evaluator: they are
// built in C++ with operators, or parsed once from text into the same typed
// tree (kernel description files write `ceil_div(n, BLOCK * ITEMS)`), then
// evaluated on a Config, printed for people and round-tripped through JSON.
//
//   using namespace memtune::search;
//   Constraint c = (axis("block_size") * axis("items") <= 8192).because("tile fits");
//   c.holds(Config{{"block_size", 256}, {"items", 4}});   // true
//   Expr e = parse_expr("ceil_div(n, block_size * items)");
//   e.eval(Config{{"n", 1000}, {"block_size", 256}, {"items", 4}});   // 1
//
// Names: an expression reads named integers from the Config it is evaluated
// on. In a kernel description those are the tunable parameters (axes), the
// problem variables, the device attributes and the derived values; a Space's
// constraints are bound (Expr::substitute) so that they read axes only.
//
// Values are 64-bit integers; booleans are 0 and 1 (a comparison yields 0 or
// 1, any non-zero value is true). `/` and `%` truncate towards zero like C++;
// division by zero and overflow throw std::domain_error naming the expression.
//
// Text syntax (C-like precedence, lowest first):
//   c ? a : b  |  a || b  |  a && b  |  == !=  |  < <= > >=  |  + -  |  * / %  |  unary - !
//   primary: 42, 16K, 4M, 1G (binary suffixes: 2^10, 2^20, 2^30), 0x1F, true, false,
//            a name ([A-Za-z_][A-Za-z0-9_.]*), ( expr ), min(a, b), max(a, b), ceil_div(a, b),
//            round_up(a, b) (= ceil_div(a, b) * b), bit_and(a, b), bit_xor(a, b) (C's a & b and a ^ b:
//            a swizzled shared-memory index), "label" (only compared with == / != against an
//            enumeration, resolved to its index by Expr::resolve_labels).
//
// JSON (recordings, spaces): a number, a name, or {"op": SYMBOL, "args": [...]} with SYMBOL one of
// + - * / % min max ceil_div bit_and bit_xor < <= == != >= > && || ! neg ?: label; nesting deeper than
// kMaxExprDepth is an error, never a stack overflow.
#include <memtune/search/config.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memtune::search {

// The deepest expression tree parse_expr and Expr::from_json accept.
inline constexpr int kMaxExprDepth = 200;
// The most nodes an expression may have once shared sub-trees are counted as
// often as they are read (what evaluating it costs): round_up(a, b) reads b
// twice and a derived value may read the one before it twice, so a short text
// can stand for an exponentially large tree. Building a larger one throws
// ExprTooLarge.
inline constexpr std::int64_t kMaxExprSize = std::int64_t{1} << 16;

// A syntax error in expression text: what is wrong and at which character
// (0-based offset into the text).
class ExprSyntaxError : public std::invalid_argument {
public:
  ExprSyntaxError(const std::string& message, std::size_t position)
      : std::invalid_argument(message), position_(position) {}
  [[nodiscard]] std::size_t position() const { return position_; }

private:
  std::size_t position_;
};

// An expression whose expanded tree would exceed kMaxExprSize nodes.
class ExprTooLarge : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

class Expr {
public:
  enum class Op {
    constant, axis, label,                  // leaves: a value, a name, a string literal (unresolved label)
    add, sub, mul, div, mod, min, max, ceil_div,
    bit_and, bit_xor,                       // functions bit_and(a, b), bit_xor(a, b): C's & and ^
    lt, le, eq, ne, ge, gt, land, lor,      // comparisons and logic yield 0 or 1
    lnot, neg,                              // unary
    select                                  // args: condition, then, else
  };

  Expr(std::int64_t value); // NOLINT(google-explicit-constructor): literals read naturally in constraints
  static Expr axis(std::string name);       // a named value (axis, problem variable, device attribute, derived)
  static Expr label(std::string text);      // "soa": resolved against an enumeration by resolve_labels
  static Expr apply(Op op, Expr lhs, Expr rhs);
  static Expr unary(Op op, Expr arg);                     // lnot, neg
  static Expr select(Expr condition, Expr then, Expr otherwise);

  // Throws std::out_of_range naming a missing name, std::domain_error for x/0
  // or overflow, std::invalid_argument for an unresolved label.
  [[nodiscard]] std::int64_t eval(const Config& config) const;
  // Parseable infix text (parse_expr(e.to_string()) gives back the same tree, up to parentheses).
  [[nodiscard]] std::string to_string() const;
  [[nodiscard]] nlohmann::json to_json() const;
  static Expr from_json(const nlohmann::json& j); // throws std::invalid_argument (depth > kMaxExprDepth too)

  [[nodiscard]] Op op() const { return op_; }
  [[nodiscard]] bool is_constant() const { return op_ == Op::constant; }
  [[nodiscard]] std::int64_t constant_value() const { return value_; } // for is_constant()
  [[nodiscard]] const std::string& name() const { return name_; }    // for axis and label
  [[nodiscard]] const std::vector<std::shared_ptr<const Expr>>& args() const { return args_; }

  // Names the expression reads (axes in a Space's constraints), in first-use order, with repeats.
  void collect_axes(std::vector<std::string>& out) const;
  // The same tree with names replaced where `replacement` returns an expression
  // (problem variables and device attributes by constants, derived values by
  // their expressions); sub-trees that become constant are folded.
  [[nodiscard]] Expr substitute(const std::function<std::optional<Expr>(const std::string& name)>& replacement) const;
  // Replaces each label compared (== / !=) with a name by that name's index of
  // the label; `labels_of(name)` returns the enumeration's labels, or nullopt
  // when the name is not an enumeration. Throws std::invalid_argument naming
  // the label and the known labels when it is not one of them, or when a label
  // is used anywhere else.
  [[nodiscard]] Expr resolve_labels(
      const std::function<std::optional<std::vector<std::string>>(const std::string& name)>& labels_of) const;

  // Levels of the tree: 1 for a leaf (what kMaxExprDepth bounds).
  [[nodiscard]] int depth() const { return depth_; }
  // Nodes of the tree with shared sub-trees counted once per use: the cost of
  // eval (what kMaxExprSize bounds).
  [[nodiscard]] std::int64_t size() const { return size_; }

private:
  Expr() = default;
  static Expr node(Op op, std::vector<Expr> args);
  Op op_ = Op::constant;
  std::int64_t value_ = 0;
  std::string name_;
  std::vector<std::shared_ptr<const Expr>> args_; // immutable children, shared freely
  int depth_ = 1;
  std::int64_t size_ = 1;
};

// Parses expression text (syntax above). Throws ExprSyntaxError with the position.
Expr parse_expr(std::string_view text);

inline Expr axis(std::string name) { return Expr::axis(std::move(name)); }
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr ceil_div(Expr a, Expr b);

class Constraint {
public:
  enum class Cmp { lt, le, eq, ne, ge, gt };
  Constraint(Expr lhs, Cmp cmp, Expr rhs, std::string reason = {});
  // Any boolean expression: a top-level comparison is kept as lhs cmp rhs
  // (so printing and JSON stay as they were), anything else as (e != 0).
  static Constraint from_expr(const Expr& condition, std::string reason = {});

  // Throws std::domain_error (x / 0, overflow) prefixed with where() when set.
  [[nodiscard]] bool holds(const Config& config) const;
  // The same constraint with where it was written ("k.json: field 'constraints[2]'"),
  // which evaluation errors name; not part of its text or JSON.
  [[nodiscard]] Constraint located(std::string where) const;
  [[nodiscard]] const std::string& where() const { return where_; }
  // The same constraint with a human reason attached ("tile fits in 48 KB").
  [[nodiscard]] Constraint because(std::string reason) const;
  [[nodiscard]] const std::string& reason() const { return reason_; }
  // The same constraint marking its breakers as duplicates: setting these
  // axes to these values gives the configuration of the same kernel that the
  // space keeps (Space::same_kernel). Like where(), not part of its text or JSON.
  [[nodiscard]] Constraint duplicates_of(std::vector<std::pair<std::string, std::int64_t>> settings) const;
  [[nodiscard]] const std::vector<std::pair<std::string, std::int64_t>>& duplicate_settings() const {
    return duplicate_settings_;
  }
  [[nodiscard]] std::string to_string() const;
  [[nodiscard]] nlohmann::json to_json() const;
  static Constraint from_json(const nlohmann::json& j); // throws std::invalid_argument

  // An implication: when `condition` holds, `then` must hold too.
  static Constraint implies(Constraint condition, Constraint then);

  // The same constraint with Expr::substitute applied to every expression.
  [[nodiscard]] Constraint substitute(
      const std::function<std::optional<Expr>(const std::string& name)>& replacement) const;
  // Names the constraint reads.
  void collect_axes(std::vector<std::string>& out) const;

private:
  Expr lhs_, rhs_;
  Cmp cmp_;
  std::string reason_;
  std::string where_;
  std::vector<std::pair<std::string, std::int64_t>> duplicate_settings_;
  std::shared_ptr<const Constraint> condition_; // set for implications
};

Constraint operator<(Expr a, Expr b);
Constraint operator<=(Expr a, Expr b);
Constraint operator==(Expr a, Expr b);
Constraint operator!=(Expr a, Expr b);
Constraint operator>=(Expr a, Expr b);
Constraint operator>(Expr a, Expr b);

} // namespace memtune::search
