#pragma once
// A calibrated target profile: the local GPU from the driver, completed from
// the catalogue entry of the same GPU where the driver is silent (L1 size,
// carve-outs, schedulers), with the probes' measurements. Written in the
// configs/targets/*.json format; model::load_target_file reads it back.
#include <memtune/probe/report.hpp>
#include <memtune/model/target.hpp>

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace memtune::probe {

// `base`: the catalogue entry for this GPU (same cc and SM count), or null.
// `name`: the target's name (a-z, 0-9, '-'). dram_bandwidth_gbs stays the
// driver's theoretical peak; memory_latency_ns and Target::measured come from
// the report; every figure has a source.
Target calibrated_target(const ProbeReport& report, const Target* base, const std::string& name);

// The catalogue format (schema_version 1): every field of Target, "sources",
// and "measured" when present.
nlohmann::json target_file_json(const Target& t);

// A valid target name from any text: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
std::string target_name_from(const std::string& text);

} // namespace memtune::probe
