// The text form of expressions (syntax in expr.hpp): a recursive-descent
// parser with C's precedence. Nesting and tree depth are bounded by
// kMaxExprDepth, so hostile text is an error, never a stack overflow.
#include <memtune/search/expr.hpp>

#include <cctype>
#include <cstdint>
#include <limits>
#include <string>

namespace memtune::search {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expr parse() {
    skip_space();
    if (at_end()) fail("expected an expression, found nothing", pos_);
    Expr e = [&] {
      try {
        return ternary();
      } catch (const ExprTooLarge& too_large) {
        fail(too_large.what(), pos_);
      }
    }();
    skip_space();
    if (!at_end()) fail("unexpected " + describe_here() + " after the expression", pos_);
    return e;
  }

private:
  [[noreturn]] static void fail(const std::string& message, std::size_t position) {
    throw ExprSyntaxError("syntax error at column " + std::to_string(position + 1) + ": " + message, position);
  }

  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  // Consumes `token` (after spaces) when the text continues with it.
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token, const std::string& context) {
    if (!accept(token)) fail("expected '" + std::string(token) + "' " + context + ", found " + describe_here(), pos_);
  }
  [[nodiscard]] std::string describe_here() const {
    if (at_end()) return "the end of the text";
    return "'" + std::string(1, text_[pos_]) + "'";
  }

  // A node built at `position`: its depth is checked here, since left-associative
  // chains (1 + 1 + ... + 1) deepen the tree without deepening the recursion.
  static Expr checked(Expr e, std::size_t position) {
    if (e.depth() > kMaxExprDepth)
      fail("the expression is nested deeper than " + std::to_string(kMaxExprDepth) + " levels", position);
    return e;
  }
  struct Nesting {
    explicit Nesting(Parser& p) : parser(p) {
      if (++parser.nesting_ > kMaxExprDepth)
        fail("the expression is nested deeper than " + std::to_string(kMaxExprDepth) + " levels", parser.pos_);
    }
    ~Nesting() { --parser.nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    Parser& parser;
  };

  Expr ternary() {
    const Nesting nesting(*this);
    Expr condition = logical_or();
    skip_space();
    const std::size_t at = pos_;
    if (!accept("?")) return condition;
    Expr then = ternary();
    expect(":", "in 'condition ? a : b'");
    Expr otherwise = ternary();
    return checked(Expr::select(std::move(condition), std::move(then), std::move(otherwise)), at);
  }

  Expr logical_or() {
    Expr e = logical_and();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      if (!accept("||")) return e;
      e = checked(Expr::apply(Expr::Op::lor, std::move(e), logical_and()), at);
    }
  }

  Expr logical_and() {
    Expr e = equality();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      if (!accept("&&")) return e;
      e = checked(Expr::apply(Expr::Op::land, std::move(e), equality()), at);
    }
  }

  Expr equality() {
    Expr e = relational();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      Expr::Op op;
      if (accept("==")) op = Expr::Op::eq;
      else if (accept("!=")) op = Expr::Op::ne;
      else if (text_.substr(pos_, 1) == "=") fail("'=' is not an operator: write == to compare", pos_);
      else return e;
      e = checked(Expr::apply(op, std::move(e), relational()), at);
    }
  }

  Expr relational() {
    Expr e = additive();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      Expr::Op op;
      if (accept("<=")) op = Expr::Op::le;
      else if (accept(">=")) op = Expr::Op::ge;
      else if (accept("<")) op = Expr::Op::lt;
      else if (accept(">")) op = Expr::Op::gt;
      else return e;
      e = checked(Expr::apply(op, std::move(e), additive()), at);
    }
  }

  Expr additive() {
    Expr e = multiplicative();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      Expr::Op op;
      if (accept("+")) op = Expr::Op::add;
      else if (accept("-")) op = Expr::Op::sub;
      else return e;
      e = checked(Expr::apply(op, std::move(e), multiplicative()), at);
    }
  }

  Expr multiplicative() {
    Expr e = unary();
    while (true) {
      skip_space();
      const std::size_t at = pos_;
      Expr::Op op;
      if (accept("*")) op = Expr::Op::mul;
      else if (accept("/")) op = Expr::Op::div;
      else if (accept("%")) op = Expr::Op::mod;
      else return e;
      e = checked(Expr::apply(op, std::move(e), unary()), at);
    }
  }

  Expr unary() {
    skip_space();
    const std::size_t at = pos_;
    if (text_.substr(pos_, 2) != "!=" && accept("!")) {
      const Nesting nesting(*this);
      return checked(Expr::unary(Expr::Op::lnot, unary()), at);
    }
    if (accept("-")) {
      const Nesting nesting(*this);
      skip_space();
      // -9223372036854775808 is the one literal that only exists negated.
      if (!at_end() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const std::size_t literal_at = pos_;
        const std::uint64_t magnitude = number();
        if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1)
          fail("the number does not fit in 64 bits", literal_at);
        if (magnitude == static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1)
          return Expr(std::numeric_limits<std::int64_t>::min());
        return Expr(-static_cast<std::int64_t>(magnitude));
      }
      return checked(Expr::unary(Expr::Op::neg, unary()), at);
    }
    if (accept("+")) {
      const Nesting nesting(*this); // the same bound as every other operator: +++...+x recurses too
      return unary();
    }
    return primary();
  }

  // Digits (decimal, or hex after 0x) with an optional K/M/G suffix (2^10, 2^20, 2^30).
  std::uint64_t number() {
    const std::size_t start = pos_;
    const bool hex = text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X";
    if (hex) pos_ += 2;
    const unsigned base = hex ? 16 : 10;
    std::uint64_t value = 0;
    bool any = false;
    while (!at_end()) {
      const char c = text_[pos_];
      int digit = -1;
      if (std::isdigit(static_cast<unsigned char>(c))) digit = c - '0';
      else if (hex && std::isxdigit(static_cast<unsigned char>(c))) digit = std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
      if (digit < 0) break;
      if (value > (std::numeric_limits<std::uint64_t>::max() - static_cast<unsigned>(digit)) / base)
        fail("the number does not fit in 64 bits", start);
      value = value * base + static_cast<unsigned>(digit);
      any = true;
      ++pos_;
    }
    if (!any) fail("expected hex digits after 0x", start);
    int shift = 0;
    if (!at_end() && !hex) {
      switch (std::toupper(static_cast<unsigned char>(text_[pos_]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: break;
      }
      if (shift) ++pos_;
    }
    if (!at_end() && is_name_char(text_[pos_]))
      fail("unexpected '" + std::string(1, text_[pos_]) + "' after a number (sizes take K, M or G)", pos_);
    if (shift && value > (std::numeric_limits<std::uint64_t>::max() >> shift))
      fail("the number does not fit in 64 bits", start);
    return value << shift;
  }

  Expr primary() {
    skip_space();
    const std::size_t at = pos_;
    if (at_end()) fail("expected an operand, found the end of the text", pos_);
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::uint64_t v = number();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail("the number does not fit in 64 bits", at);
      return Expr(static_cast<std::int64_t>(v));
    }
    if (c == '(') {
      ++pos_;
      Expr e = ternary();
      expect(")", "to close the '(' at column " + std::to_string(at + 1));
      return e;
    }
    if (c == '"') return label();
    if (is_name_start(c)) {
      while (!at_end() && is_name_char(text_[pos_])) ++pos_;
      const std::string name(text_.substr(at, pos_ - at));
      if (name == "true") return Expr(1);
      if (name == "false") return Expr(0);
      skip_space();
      if (!at_end() && text_[pos_] == '(') return call(name, at);
      return Expr::axis(name);
    }
    if (c == ')') fail("expected an operand, found ')'", pos_);
    fail("expected an operand, found '" + std::string(1, c) + "'", pos_);
  }

  Expr label() {
    const std::size_t at = pos_;
    ++pos_; // the opening quote
    std::string text;
    while (!at_end() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      text += text_[pos_++];
    }
    if (at_end()) fail("the label starting here has no closing '\"'", at);
    ++pos_;
    return Expr::label(std::move(text));
  }

  Expr call(const std::string& name, std::size_t at) {
    Expr::Op op = Expr::Op::min;
    bool round_up = false;
    if (name == "min") op = Expr::Op::min;
    else if (name == "max") op = Expr::Op::max;
    else if (name == "ceil_div") op = Expr::Op::ceil_div;
    else if (name == "round_up") round_up = true;
    else if (name == "bit_and") op = Expr::Op::bit_and;
    else if (name == "bit_xor") op = Expr::Op::bit_xor;
    else fail("unknown function '" + name + "' (functions: min, max, ceil_div, round_up, bit_and, bit_xor)", at);
    const Nesting nesting(*this);
    expect("(", "after " + name);
    Expr a = ternary();
    expect(",", "between the two arguments of " + name);
    Expr b = ternary();
    expect(")", "after the arguments of " + name);
    if (round_up) return checked(ceil_div(std::move(a), b) * b, at);
    return checked(Expr::apply(op, std::move(a), std::move(b)), at);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

} // namespace

Expr parse_expr(std::string_view text) { return Parser(text).parse(); }

} // namespace memtune::search
