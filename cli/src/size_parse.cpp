#include "size_parse.hpp"

#include <cctype>
#include <limits>

namespace memtune::cli {

std::optional<std::int64_t> parse_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t i = 0;
  std::int64_t value = 0;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const int digit = text[i] - '0';
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) return std::nullopt;
  int shift = 0;
  if (i < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    default: return std::nullopt;
    }
    ++i;
  }
  if (i != text.size()) return std::nullopt;
  if (shift && value > (kMax >> shift)) return std::nullopt;
  return value << shift;
}

} // namespace memtune::cli
