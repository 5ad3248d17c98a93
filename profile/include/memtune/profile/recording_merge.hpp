#pragma once
// Joins the recordings of one run's parts (the shards of a Slurm job array,
// a run repeated on another node) into one recording per GPU model, whose
// trials are the union of the parts' and whose ranking is that of a single
// run over the same candidates. `memtune merge` (docs/merge.md).
//
//   auto merged = merge_recordings({{"f_shard0.json", load_recording("f_shard0.json")}, ...});
//   save_recording(merged.front().recording, "f.json");
//
// The parts must be of one run: the same template, kernel fingerprint,
// problem, mode (measured or modeled) and space, the space's shard aside.
// Shards must be of one count and complete (every shard 1..N, or a whole run
// among the inputs). A configuration in two parts must have the same result
// (status and time); identical duplicates are kept once. Parts of different
// GPU models (the recording's "device": name, compute capability, SMs) are
// kept apart: one merged recording each, every check applying per model.
//
// Every refusal is an InputError naming the file and what differs from which
// other file. Journals (the worker's JSON lines) join the same way once read
// as a Recording: this is the one place where parts become a run.
#include <memtune/io/errors.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/search/recording.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace memtune {

// One input of a merge: where it came from (for errors) and what it holds.
struct RecordingPart {
  std::string file;
  search::Recording recording;
};

struct MergedRecording {
  // The union: the space without a shard, the trials in the space's grid
  // order, annotations the parts agree on (wall_seconds: the parts' sum;
  // copy_ceiling_gbps: the highest measured; others that differ: dropped).
  search::Recording recording;
  std::vector<std::string> files;      // the parts joined, in input order
  std::size_t identical_duplicates = 0; // configurations recorded by more than one part, with the same result
  // "shards 1-4 of 4", "whole run", "whole run and shards 1-4 of 4"
  std::string coverage;
  std::vector<std::string> dropped_annotations; // differing facts left out (e.g. "strategy")
};

// One MergedRecording per GPU model, in the order the models first appear.
// Throws InputError (see the header comment); std::invalid_argument when
// `parts` is empty.
[[nodiscard]] std::vector<MergedRecording> merge_recordings(const std::vector<RecordingPart>& parts);

// Where the merged recording of one GPU model is written: `out` itself when
// the inputs hold `models` == 1; else `out` with the model's name and SM
// count before the extension ("f.json" -> "f.nvidia-h100-80gb-hbm3-132sm.json").
[[nodiscard]] std::filesystem::path model_output_path(const std::filesystem::path& out, const MergedRecording& merged,
                                                      std::size_t models);

// The profile entry of a merged recording's best configuration, as
// `--save` writes it from a tuning run (make_profile_entry): runner-ups,
// GB/s and the fraction of the copy ceiling from the recording's
// bytes_moved and copy_ceiling_gbps, and the trials' compiled resources
// where the recording kept them. The rationale says where the pick came
// from (a recording keeps no model facts to explain it).
// Throws std::invalid_argument when no candidate succeeded; InputError when
// the recording's device or problem cannot make an entry.
[[nodiscard]] ProfileEntry profile_entry_from_merge(const MergedRecording& merged, std::size_t runner_ups = kProfileRunnerUps);

} // namespace memtune
