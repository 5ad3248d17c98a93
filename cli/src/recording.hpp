#pragma once
// A recording: every evaluated configuration of a run with its time or
// failure, so the space can be searched again without a GPU (search/'s replay).
#include <memtune/output/tuning_result.hpp>

#include <nlohmann/json_fwd.hpp>

namespace memtune::cli {

nlohmann::json recording_json(const TuningResult& result);

} // namespace memtune::cli
