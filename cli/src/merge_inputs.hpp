#pragma once
// What `memtune merge` reads: every input file becomes a RecordingPart (the
// parts of one run) or a StorePart (profile stores), and all inputs must be
// of one kind. The kind is read from the content, not the name: a recording
// is a JSON object with "trials", a profile store one with "entries", a
// journal JSON lines whose first line is {"journal": "memtune", ...}.
//
// A journal (a run's candidates as they ended, journal.hpp) is read as the
// recording its run would have written (journal_recording.hpp) and joins the
// recordings: the shards of a run that were killed before writing their
// recordings merge from their journals, beside the recordings of the others.
#include <memtune/profile/recording_merge.hpp>
#include <memtune/profile/store_merge.hpp>

#include <filesystem>
#include <string_view>
#include <vector>

namespace memtune {

enum class MergeInputKind { recording, profile_store, journal };
[[nodiscard]] std::string_view to_string(MergeInputKind kind); // "recording", "profile store", "journal"

// The kind of one file. Throws InputError naming the file (and the line, for
// JSON that does not parse) when it is none of them.
[[nodiscard]] MergeInputKind merge_input_kind(const std::filesystem::path& file);

struct MergeInputs {
  MergeInputKind kind = MergeInputKind::recording;
  std::vector<RecordingPart> recordings; // kind == recording
  std::vector<StorePart> stores;         // kind == profile_store
};

// Reads every file, each checked by its format's reader (errors name the
// file, line and field). Throws InputError for inputs of mixed kinds (a
// profile store among recordings and journals), naming a file of each.
[[nodiscard]] MergeInputs read_merge_inputs(const std::vector<std::filesystem::path>& files);

} // namespace memtune
