#include <memtune/io/json_document.hpp>
#include <memtune/tune/journal_recording.hpp>
#include "merge_inputs.hpp"

#include <nlohmann/json.hpp>

namespace memtune {
namespace {

// A journal is JSON lines: its first line alone parses, the file does not.
bool first_line_is_journal_header(const std::string& text) {
  const nlohmann::json first = nlohmann::json::parse(text.substr(0, text.find('\n')), nullptr, false);
  return first.is_object() && first.value("journal", "") == "memtune";
}

} // namespace

std::string_view to_string(MergeInputKind kind) {
  switch (kind) {
  case MergeInputKind::recording: return "recording";
  case MergeInputKind::profile_store: return "profile store";
  case MergeInputKind::journal: return "journal";
  }
  return "?";
}

MergeInputKind merge_input_kind(const std::filesystem::path& file) {
  std::string text = io::read_text_file(file);
  if (first_line_is_journal_header(text)) return MergeInputKind::journal;
  const io::JsonDocument doc = io::parse_json(std::move(text), file.string());
  const nlohmann::json& root = doc.root();
  if (root.is_object() && root.contains("trials")) return MergeInputKind::recording;
  if (root.is_object() && root.contains("entries")) return MergeInputKind::profile_store;
  throw InputError(file.string(), 0, "",
                   "is neither a memtune recording (no \"trials\", see --record) nor a profile store (no \"entries\", "
                   "see --save): nothing to merge");
}

MergeInputs read_merge_inputs(const std::vector<std::filesystem::path>& files) {
  MergeInputs in;
  std::filesystem::path first;
  for (const auto& file : files) {
    const MergeInputKind found = merge_input_kind(file);
    // A journal is a run's recording in the making: it joins recordings.
    const MergeInputKind kind = found == MergeInputKind::journal ? MergeInputKind::recording : found;
    if (first.empty()) {
      first = file;
      in.kind = kind;
    } else if (kind != in.kind) {
      throw InputError(file.string(), 0, "",
                       "is a " + std::string(to_string(kind)) + ", but " + first.string() + " is a " +
                           std::string(to_string(in.kind)) + ": merge joins inputs of one kind");
    }
    if (found == MergeInputKind::journal) in.recordings.push_back({file.string(), load_journal_as_recording(file)});
    else if (kind == MergeInputKind::recording) in.recordings.push_back({file.string(), search::load_recording(file)});
    else in.stores.push_back({file.string(), ProfileStore(file).entries()});
  }
  return in;
}

} // namespace memtune
