#pragma once
// A tuning run as the result model of output/document.hpp, so that one run
// prints as a table, JSON, CSV or markdown through the same printers.
#include <memtune/output/document.hpp>
#include <memtune/output/tuning_result.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace memtune {

// The header facts, the ranked table (top rows), best and rationale,
// runner-ups, failures and baselines; `template_note` is the template's
// explain() line. JSON: every field of to_json(result, top).
[[nodiscard]] output::Document to_document(const TuningResult& result, std::size_t top = SIZE_MAX,
                                           const std::string& template_note = {});
// What to do when a kernel's time cannot be modeled (its description has no
// "model" section and nothing was measured): one sentence, for `tune` and
// `sweep` alike.
[[nodiscard]] std::string not_modeled_advice(const std::string& kernel_name);
// The keys of the tables to_document may hold (a run holds those it has:
// occupancy only where registers are known, baselines only with --compare),
// for `--table` to be checked before a run.
inline const std::vector<std::string> kTuningTables{"ranked", "failures", "occupancy", "baselines"};

} // namespace memtune
