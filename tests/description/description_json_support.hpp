#pragma once
// The description-file tests' helpers (description_json_test.cpp and
// description_json_arguments_test.cpp): the transpose asset to edit, reading
// a document, and CHECK_FAILS, which checks the error's file, field and reason.
#include <memtune/description/description_json.hpp>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace description_json_test {

using namespace memtune;
using nlohmann::ordered_json;

inline const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

inline ordered_json transpose() {
  std::ifstream in(kAssets / "transpose.json");
  return ordered_json::parse(in);
}

inline KernelDescription read(const ordered_json& doc) { return description_from_json(doc, "k.json", kAssets); }

struct Failure {
  std::string field, reason, what;
};

inline Failure failure(const ordered_json& doc) {
  try {
    (void)read(doc);
  } catch (const DescriptionError& e) {
    CHECK(e.file() == "k.json");
    CHECK(std::string(e.what()) == "k.json: " + (e.field().empty() ? "" : "field '" + e.field() + "': ") + e.reason());
    return {e.field(), e.reason(), e.what()};
  }
  FAIL("the description was accepted: " << doc.dump());
  return {};
}

#define CHECK_FAILS(doc, expected_field, reason_part)                                                                  \
  do {                                                                                                                 \
    const Failure f_ = failure(doc);                                                                                   \
    CHECK(f_.field == (expected_field));                                                                               \
    CHECK_MESSAGE(f_.reason.find(reason_part) != std::string::npos, f_.what);                                          \
  } while (false)

} // namespace description_json_test
