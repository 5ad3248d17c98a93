// Recordings (`--record`, bench/data): any bytes load as a recording or give
// an InputError naming the file, the line and the field; a loaded recording
// replays and round-trips through JSON.
#include "harness.hpp"

#include <memtune/io/json_document.hpp>
#include <memtune/search/recording.hpp>

#include <cstdlib>

MEMTUNE_FUZZ_TEXT(text) {
  const memtune::io::JsonDocument doc = memtune::io::parse_json(text, "fuzz-recording.json");
  const memtune::search::Recording r =
      doc.read([](const memtune::io::JsonFields& root) { return memtune::search::Recording::from_fields(root); });
  const auto objective = memtune::search::replay_objective(r);
  for (const auto& t : r.trials)
    if (objective(t.config).status != t.status) std::abort();
  const memtune::search::Recording back = memtune::search::Recording::from_json(r.to_json());
  if (back.trials.size() != r.trials.size()) std::abort();
}
