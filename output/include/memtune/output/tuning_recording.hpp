#pragma once
// A run as a recording (search/recording.hpp): every evaluated configuration
// with its time or failure, and per trial its energy, GPU and compiled
// resources (what the model needs to predict it again), so the space can
// be searched again without a GPU, reported, merged or carried to another GPU
// (--from). `memtune --record` saves it with search::save_recording, the one
// writer of recording files; the JSON document's "trials" are the same trials.
#include <memtune/output/tuning_result.hpp>
#include <memtune/search/recording.hpp>

namespace memtune {

// A candidate that compiled and fits but has no time (a description without a
// "model" section, modeled) becomes a "not_modeled" trial without a time, so
// no reader takes it for an "ok" one whose time is missing.
[[nodiscard]] search::Recording to_recording(const TuningResult& result);

// One trial's facts besides its time (a recording's trial annotations):
// "resources" (ptxas' figures, when it compiled), "device" (the GPU it ran
// on, when known) and its energy (when measured).
[[nodiscard]] nlohmann::json trial_facts(const Evaluation& e);

} // namespace memtune
