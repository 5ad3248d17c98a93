// Expressions as a description uses them, for cost as much as for crashes:
// lines "name: expression" define derived values (each may read the ones
// before it, bound into the next by Expr::substitute as a description binds
// them, sharing sub-trees), and the last line is a condition, bound the same
// way and evaluated over a few configurations of the names it reads.
//
// Any text either evaluates or throws a typed error: ExprSyntaxError (with
// ExprTooLarge refused by the parser), ExprTooLarge from binding, a
// domain_error (x / 0, overflow) or out_of_range (an unknown name). Whatever
// it does must stay cheap: a tree past kMaxExprSize, or one input taking more
// than a second, aborts (a short text standing for an exponential tree is the
// finding: nested round_up, derived values read twice).
#include <memtune/search/expr.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using memtune::search::Config;
using memtune::search::Expr;

void check_size(const Expr& e) {
  if (e.size() > memtune::search::kMaxExprSize || e.depth() > e.size()) std::abort();
}

void run(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) lines.push_back(std::move(line));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (lines.empty()) return;

  std::map<std::string, Expr> bound;
  const auto bind = [&](const std::string& name) -> std::optional<Expr> {
    if (const auto it = bound.find(name); it != bound.end()) return it->second;
    return std::nullopt;
  };
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::size_t colon = lines[i].find(':');
    if (colon == 0 || colon == std::string::npos) continue;
    const Expr value = memtune::search::parse_expr(std::string_view(lines[i]).substr(colon + 1));
    check_size(value);
    const Expr b = value.substitute(bind);
    check_size(b);
    bound.insert_or_assign(lines[i].substr(0, colon), b);
  }
  const Expr condition = memtune::search::parse_expr(lines.back()).substitute(bind);
  check_size(condition);

  std::vector<std::string> names;
  condition.collect_axes(names);
  if (names.size() > static_cast<std::size_t>(memtune::search::kMaxExprSize)) std::abort();
  (void)condition.to_string();
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{1} << 40}) {
    Config config;
    for (const auto& n : names) config.set(n, v);
    try {
      (void)condition.eval(config);
    } catch (const std::domain_error&) {
    } catch (const std::invalid_argument&) { // an unresolved label
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto began = std::chrono::steady_clock::now();
  try {
    run(text);
  } catch (const memtune::search::ExprSyntaxError&) {
  } catch (const memtune::search::ExprTooLarge&) {
  } catch (const std::domain_error&) {
  } catch (const std::out_of_range&) {
  }
  // Parsing and evaluating is linear in the text and bounded by kMaxExprSize:
  // a second is a blow-up (libFuzzer's -timeout would only catch ten).
  if (std::chrono::steady_clock::now() - began > std::chrono::seconds(1)) std::abort();
  return 0;
}
