// `{expression}` patterns: kernel name expressions, -D macro values and
// pruning reasons (`transpose<{TILE}, {ROWS * 2}>`).
#include <memtune/description/description_internal.hpp>

#include <stdexcept>

namespace memtune::description_detail {

std::vector<PatternPiece> parse_pattern(std::string_view pattern) {
  std::vector<PatternPiece> pieces;
  std::string literal;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) { // {{ and }}
      literal += c;
      i += 2;
      continue;
    }
    if (c == '}') throw search::ExprSyntaxError("a '}' without its '{' (write }} for a brace)", i);
    if (c != '{') {
      literal += c;
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', i + 1);
    if (close == std::string_view::npos) throw search::ExprSyntaxError("the '{' here is never closed", i);
    if (!literal.empty()) pieces.push_back({false, std::move(literal), 0, std::nullopt});
    literal.clear();
    const std::string_view text = pattern.substr(i + 1, close - i - 1);
    try {
      pieces.push_back({true, std::string(text), i + 1, search::parse_expr(text)});
    } catch (const search::ExprSyntaxError& e) {
      // The position in the whole pattern, not in the placeholder.
      const std::string message = e.what();
      const std::size_t colon = message.find(": ");
      throw search::ExprSyntaxError(
          "syntax error at column " + std::to_string(i + 2 + e.position()) + " (in {" + std::string(text) + "})" +
              (colon == std::string::npos ? message : message.substr(colon)),
          i + 1 + e.position());
    }
    i = close + 1;
  }
  if (!literal.empty()) pieces.push_back({false, std::move(literal), 0, std::nullopt});
  return pieces;
}

std::string render_pattern(const KernelDescription& d, std::string_view pattern, const search::Config& env,
                           const std::string& field) {
  std::string out;
  for (const auto& piece : parse_pattern(pattern)) {
    if (!piece.is_expr) {
      out += piece.text;
      continue;
    }
    const std::int64_t value = evaluate(d, *piece.expr, env, field + " {" + piece.text + "}");
    if (piece.expr->op() == search::Expr::Op::axis) {
      if (const auto labels = labels_of(d, piece.expr->name());
          labels && value >= 0 && static_cast<std::size_t>(value) < labels->size()) {
        out += (*labels)[static_cast<std::size_t>(value)];
        continue;
      }
    }
    out += std::to_string(value);
  }
  return out;
}

} // namespace memtune::description_detail
