// Target files (configs/targets/*.json, `memtune probe --save-target`): any
// bytes load as a target or give a TargetFileError naming the file and field.
#include "harness.hpp"

#include <memtune/io/json_document.hpp>
#include <memtune/model/target_catalog.hpp>

MEMTUNE_FUZZ_TEXT(text) {
  const memtune::io::JsonDocument doc = memtune::io::parse_json(text, "fuzz-target.json");
  try {
    (void)memtune::model::parse_target(doc.root(), doc.origin());
  } catch (const memtune::InputError& e) {
    throw doc.locate(e); // the line lookup runs on every error, as load_target_file's does
  }
}
