#pragma once
// Human output of a tuning run: header, ranked table, best configuration with
// its rationale, and the failures by status.
#include <memtune/tuning_result.hpp>

#include <ostream>

namespace memtune::cli {

void print_table(std::ostream& out, const TuningResult& result, std::size_t top);

} // namespace memtune::cli
