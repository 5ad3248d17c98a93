#pragma once
// A fresh folder under the system's temporary directory for one test case,
// removed with everything in it afterwards.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace memtune::testing {

struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("memtune-test-" + std::to_string(std::random_device{}()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Writes `text` to `name` in the folder; returns its path.
  [[nodiscard]] std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

} // namespace memtune::testing
