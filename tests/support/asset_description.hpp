#pragma once
// CPU tests' kernel descriptions: the files in tests/assets/descriptions, each loaded once.
#include <memtune/description/description_json.hpp>

#include <filesystem>
#include <map>
#include <string>

inline const memtune::KernelDescription& asset_description(const std::string& file) {
  static std::map<std::string, memtune::KernelDescription> loaded;
  auto it = loaded.find(file);
  if (it == loaded.end())
    it = loaded.emplace(file, memtune::load_description(std::filesystem::path(MEMTUNE_TEST_ASSETS_DIR) / "descriptions" / file))
             .first;
  return it->second;
}
