#include <memtune/io/digest.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace memtune {
namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t basis) {
  std::uint64_t h = basis;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

std::string digest128(std::string_view text) {
  return hex(fnv1a(text, 0xcbf29ce484222325ULL)) + hex(fnv1a(text, 0x84222325cbf29ce4ULL));
}

bool is_digest128(std::string_view text) {
  return text.size() == 32 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace memtune
