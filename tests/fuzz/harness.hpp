#pragma once
// What every memtune fuzz harness checks: a reader given any bytes either
// succeeds or throws one of memtune's typed errors (InputError: a bad file,
// ArgumentError: a bad argument). Any other exception escapes and libFuzzer
// reports it, as it reports crashes, hangs and sanitizer findings.
//
// A new harness is one file and one line in CMakeLists.txt:
//
//   #include "harness.hpp"
//   #include <memtune/tune/journal.hpp>
//   MEMTUNE_FUZZ_TEXT(text) { (void)memtune::parse_journal(text, "fuzz.jsonl"); }
//
//   memtune_add_fuzzer(journal LIBRARIES memtune::tune SEEDS ${PROJECT_SOURCE_DIR}/tests/assets/journals)
#include <memtune/io/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace memtune::fuzz {

template <class Reader>
int accept_typed_errors(const std::uint8_t* data, std::size_t size, Reader&& reader) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    reader(text);
  } catch (const InputError&) {
  } catch (const ArgumentError&) {
  }
  return 0;
}

} // namespace memtune::fuzz

// Defines the libFuzzer entry point around a body that reads `text`.
#define MEMTUNE_FUZZ_TEXT(text)                                                                                       \
  static void memtune_fuzz_body(const std::string& text);                                                             \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {                                 \
    return memtune::fuzz::accept_typed_errors(data, size, memtune_fuzz_body);                                         \
  }                                                                                                                   \
  static void memtune_fuzz_body(const std::string& text)
