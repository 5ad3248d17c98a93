#include <memtune/journal_recording.hpp>

#include <set>

namespace memtune {

search::Recording recording_from_journal(const JournalContents& journal, const std::string& origin) {
  const nlohmann::json& h = journal.header;
  if (!h.is_object()) throw JournalError(origin, 1, "", "no header (an empty journal)");
  if (!h.contains("space"))
    throw JournalError(origin, 1, "space",
                       "this journal does not keep its search space (written by an older memtune): merge the recording "
                       "its run wrote (--record) instead");
  search::Recording r;
  try {
    r.space = search::Space::from_json(h.at("space"));
  } catch (const std::exception& e) {
    throw JournalError(origin, 1, "space", e.what());
  }
  if (space_digest(r.space) != h.value("space_digest", std::string()))
    throw JournalError(origin, 1, "space", "does not match the header's space_digest: the header was edited or damaged");
  const io::JsonFields f(h);
  try {
    r.tool = f.at("tool").string();
    r.template_name = f.at("description").at("name").string();
    r.kernel_fingerprint = f.at("description").at("fingerprint").string();
    r.mode = f.at("mode").string();
    r.problem = f.at("problem").value();
    r.device = f.at("device").value();
  } catch (const InputError& e) {
    throw JournalError(origin, 1, e.field(), e.message());
  }
  r.annotations["target"] = h.value("target", nlohmann::json());
  r.annotations["strategy"] = h.value("strategy", nlohmann::json());
  if (h.contains("bytes_moved")) r.annotations["bytes_moved"] = h.at("bytes_moved");
  if (h.value("peak_dram_gbps", 0.0) > 0) r.annotations["peak_dram_gbps"] = h.at("peak_dram_gbps");
  if (journal.setup && journal.setup->contains("ceiling") && journal.setup->at("ceiling").is_object())
    r.annotations["copy_ceiling_gbps"] = journal.setup->at("ceiling").value("gbps", 0.0);
  r.annotations["from_journal"] = origin;

  std::set<search::Config> seen;
  for (const JournalContents::Line& line : journal.candidates) {
    const Evaluation e = evaluation_from_journal_line(r.space, line.value, origin, line.number);
    if (!seen.insert(e.config).second)
      throw JournalError(origin, line.number, "config", "configuration " + r.space.format(e.config) + " appears twice");
    search::Trial t;
    t.config = e.config;
    if (e.ok() && e.timing) t.time_s = e.timing->median_s;
    t.status = to_string(e.status);
    t.reason = e.reason;
    if (e.ok() && !e.timing) { // a modeled candidate of a kernel without a model: nothing to rank
      t.status = "no_time";
      t.reason = "no time in the journal";
    }
    r.trials.push_back(std::move(t));
  }
  return r;
}

search::Recording load_journal_as_recording(const std::filesystem::path& file) {
  return recording_from_journal(read_journal(file), file.string());
}

} // namespace memtune
