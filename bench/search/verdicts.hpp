#pragma once
// The benchmark's verdicts: the bar per recording (bayes and
// bayes+model against the grid, random and Kernel Tuner), and the table of
// evaluations to 5% by batch size (verdicts.cpp).
#include "rows.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace memtune::bench {

// The bar, one line per criterion, recording and model-based strategy.
// `kt`: the JSON of kernel_tuner_compare.py --json (null: none); `no_prior`:
// recording -> why bayes+model did not run.
void print_verdicts(const std::vector<Row>& rows, const nlohmann::json& kt,
                    const std::map<std::string, std::string>& no_prior);

// Evaluations to 5% per batch size, one line per recording and model-based
// strategy, and the bar: batch 4 at most 1.5x the sequential evaluations.
void print_batch_table(const std::vector<Row>& rows, const std::vector<std::size_t>& batch_sizes);

} // namespace memtune::bench
