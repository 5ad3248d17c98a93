#pragma once
// An expression whose names are bound to slots of an array, for evaluating
// one expression millions of times with a few changing inputs (the model
// replays every thread of a block, every iteration): Expr::eval looks each
// name up by string, which is most of the time there.
//
//   const Expr e = parse_expr("(threadIdx.y + iteration * 8) * 1024 + threadIdx.x");
//   const auto s = SlotExpr::bind(e, {"threadIdx.x", "threadIdx.y", "iteration"});
//   std::array<std::int64_t, 3> v{5, 2, 1};
//   s->try_eval(v);   // 10245, or nullopt where Expr::eval would throw
//
// try_eval gives Expr::eval's value whenever Expr::eval returns one, and
// nullopt where it throws (division by zero, overflow, an unresolved
// label): the caller then calls Expr::eval for the error and its message.
#include <memtune/search/expr.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace memtune::search {

class SlotExpr {
public:
  // nullopt when the expression reads a name that is not one of `slots`.
  static std::optional<SlotExpr> bind(const Expr& e, const std::vector<std::string>& slots);

  // `values[i]` is the value of slots[i].
  [[nodiscard]] std::optional<std::int64_t> try_eval(std::span<const std::int64_t> values) const;

private:
  struct Node {
    Expr::Op op = Expr::Op::constant;
    std::int64_t value = 0; // a constant's value, or an axis's slot
    int a = -1, b = -1, c = -1;
  };
  int add(const Expr& e, const std::vector<std::string>& slots, bool& unbound);
  [[nodiscard]] bool eval(int node, std::span<const std::int64_t> values, std::int64_t& out) const;
  std::vector<Node> nodes_; // the root last
};

} // namespace memtune::search
