#pragma once
// Internal to the expression files: the operators' symbols (text and JSON)
// and arities, shared by the tree, the parser and the rewrites.
#include <memtune/search/expr.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace memtune::search {

struct OpInfo {
  Expr::Op op;
  const char* symbol; // JSON "op" and, for infix operators, the text
  int arity;
};

inline constexpr std::array<OpInfo, 22> kOps{{{Expr::Op::add, "+", 2},      {Expr::Op::sub, "-", 2},
                                              {Expr::Op::mul, "*", 2},      {Expr::Op::div, "/", 2},
                                              {Expr::Op::mod, "%", 2},      {Expr::Op::min, "min", 2},
                                              {Expr::Op::max, "max", 2},    {Expr::Op::ceil_div, "ceil_div", 2},
                                              {Expr::Op::bit_and, "bit_and", 2}, {Expr::Op::bit_xor, "bit_xor", 2},
                                              {Expr::Op::lt, "<", 2},       {Expr::Op::le, "<=", 2},
                                              {Expr::Op::eq, "==", 2},      {Expr::Op::ne, "!=", 2},
                                              {Expr::Op::ge, ">=", 2},      {Expr::Op::gt, ">", 2},
                                              {Expr::Op::land, "&&", 2},    {Expr::Op::lor, "||", 2},
                                              {Expr::Op::lnot, "!", 1},     {Expr::Op::neg, "neg", 1},
                                              {Expr::Op::select, "?:", 3},  {Expr::Op::label, "label", 1}}};

struct CmpName {
  Constraint::Cmp cmp;
  const char* symbol;
  Expr::Op op;
};

const OpInfo& op_info(Expr::Op op);              // throws std::logic_error for leaves
const OpInfo* op_by_symbol(std::string_view symbol); // nullptr when unknown
bool is_comparison(Expr::Op op);
std::int64_t ceil_div_value(std::int64_t a, std::int64_t b); // b != 0, no overflow

} // namespace memtune::search
