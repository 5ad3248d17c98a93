// Kernel description files (tune --spec, templates/<name>/): any bytes read as
// a description or give a DescriptionError naming the file and the field (a
// syntax error: the line). Source files resolve in tests/assets/descriptions,
// so a seed's kernel source is found and its signature and expressions are
// checked as load_description checks them. A description with a "model"
// section is then replayed as a modeled run replays it (its default
// configuration on the H100): that too succeeds or names the field.
#include "harness.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/model/global_replay.hpp>
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/model/traffic.hpp>

#include <stdexcept>

MEMTUNE_FUZZ_TEXT(text) {
  const memtune::KernelDescription d =
      memtune::description_from_text(text, "fuzz-description.json", MEMTUNE_FUZZ_ASSETS "/descriptions");
  if (!d.has_model()) return;
  static const memtune::model::TargetCatalog catalog = memtune::model::TargetCatalog::load_directory(MEMTUNE_FUZZ_TARGETS_DIR);
  const memtune::Target& h100 = catalog.find("h100");
  memtune::Problem problem;
  memtune::search::Config config;
  try {
    // What a tuning run refuses (with its own message) before the model runs.
    problem = d.complete({});
    config = d.default_config(problem, h100);
    (void)d.launch(config, problem, h100);
  } catch (const std::invalid_argument&) {
    return;
  }
  const memtune::AccessPattern a = d.access_pattern(config, problem, h100);
  const int warps = (a.block_threads + 31) / 32;
  (void)memtune::model::replay_block(a.shared, warps, memtune::model::BankConfig::for_target(h100, a.bank_width_bytes));
  (void)memtune::replay_global(a, warps, memtune::GlobalCaching::for_target(h100, 64, 0));
  (void)memtune::model::estimate_traffic(a.arrays_by_residency(static_cast<double>(h100.sm_count)), h100.l2_bytes);
}
