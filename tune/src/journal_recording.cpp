#include <memtune/tune/journal_recording.hpp>

#include <memtune/output/tuning_recording.hpp>

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
  const io::JsonFields f(h);
  // Every field through JsonFields: a value of the wrong type is the file's
  // error (line 1, the field), never nlohmann's type_error.
  try {
    if (space_digest(r.space) != f.at("space_digest").string())
      throw JournalError(origin, 1, "space", "does not match the header's space_digest: the header was edited or damaged");
    r.tool = f.at("tool").string();
    r.template_name = f.at("description").at("name").string();
    r.kernel_fingerprint = f.at("description").at("fingerprint").string();
    r.mode = f.at("mode").string();
    r.problem = f.at("problem").value();
    r.device = f.at("device").value();
    for (const char* key : {"target", "strategy"})
      if (const auto v = f.find(key)) r.annotations[key] = v->value();
    if (const auto v = f.find("bytes_moved")) r.annotations["bytes_moved"] = v->integer<std::uint64_t>();
    if (const auto v = f.find("peak_dram_gbps"); v && v->number(0.0) > 0) r.annotations["peak_dram_gbps"] = v->number();
  } catch (const JournalError&) {
    throw;
  } catch (const InputError& e) {
    throw JournalError(origin, 1, e.field(), e.message());
  }
  if (journal.setup) {
    const io::JsonFields setup(*journal.setup);
    try {
      if (const auto ceiling = setup.find("ceiling"); ceiling && !ceiling->value().is_null())
        r.annotations["copy_ceiling_gbps"] = ceiling->at("gbps").number(0.0);
    } catch (const InputError& e) {
      throw JournalError(origin, 0, "setup." + e.field(), e.message());
    }
  }
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
    r.trial_annotations.push_back(trial_facts(e));
  }
  return r;
}

search::Recording load_journal_as_recording(const std::filesystem::path& file) {
  return recording_from_journal(read_journal(file), file.string());
}

} // namespace memtune
