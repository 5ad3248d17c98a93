#pragma once
// CPU tests' GPUs: targets from the catalogue in this source tree (configs/targets).
#include <memtune/model/target_catalog.hpp>

inline const memtune::Target& catalogue_target(const char* name) {
  static const memtune::model::TargetCatalog catalog =
      memtune::model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return catalog.find(name);
}
