#pragma once
// A sweep's report: per size, the best configuration, its time, GB/s and
// fraction of the ceiling (the measured copy ceiling; modeled: the target's
// peak DRAM bandwidth), what the search cost, and where the best
// configuration changes from the size before. One document for every format
// (table, json, markdown, csv).
#include <memtune/description/kernel_description.hpp>
#include <memtune/output/document.hpp>
#include <memtune/output/tuning_result.hpp>

#include <string>
#include <vector>

namespace memtune::cli {

// `swept`: the variables --over moves, shown per size. `results`: one per size, in order;
// `refined[i]`: results[i]'s size was added by --refine (its neighbours disagreed).
[[nodiscard]] output::Document sweep_document(const KernelDescription& kernel, const std::vector<std::string>& swept,
                                              const std::vector<TuningResult>& results,
                                              const std::vector<bool>& refined, const std::string& saved_to);

} // namespace memtune::cli
