#include <memtune/search/rng.hpp>
#include <memtune/search/shard.hpp>

#include <charconv>
#include <stdexcept>

namespace memtune::search {
namespace {

// FNV-1a (64-bit) over bytes; then splitmix64's finaliser, so that configs
// differing in one value land in unrelated shards.
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::uint64_t fnv(std::uint64_t h, unsigned char byte) { return (h ^ byte) * kFnvPrime; }


std::uint64_t parse_part(const std::string& text, const std::string& part) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (part.empty() || ec != std::errc() || end != part.data() + part.size())
    throw std::invalid_argument("shard '" + text + "': expected I/N with whole numbers, e.g. 2/4");
  return v;
}

} // namespace

Shard Shard::of(std::uint64_t index, std::uint64_t count) {
  if (count == 0 || count > 0xffffffffULL)
    throw std::invalid_argument("shard " + std::to_string(index) + "/" + std::to_string(count) +
                                ": the number of shards must be 1 to 4294967295");
  if (index < 1 || index > count)
    throw std::invalid_argument("shard " + std::to_string(index) + "/" + std::to_string(count) +
                                ": the shard number must be 1 to " + std::to_string(count) + " (shards count from 1)");
  return Shard{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(count)};
}

Shard Shard::parse(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw std::invalid_argument("shard '" + text + "': expected I/N, e.g. 2/4");
  return of(parse_part(text, text.substr(0, slash)), parse_part(text, text.substr(slash + 1)));
}

std::string Shard::to_string() const { return std::to_string(index) + "/" + std::to_string(count); }

std::uint64_t shard_key(const Config& config) {
  std::uint64_t h = kFnvOffset;
  for (const auto& [name, value] : config.values()) {
    for (const char ch : name) h = fnv(h, static_cast<unsigned char>(ch));
    h = fnv(h, 0); // the name's end: "ab"=1 and "a"+"b..." never share bytes
    const auto bits = static_cast<std::uint64_t>(value);
    for (int byte = 0; byte < 8; ++byte) h = fnv(h, static_cast<unsigned char>(bits >> (8 * byte)));
  }
  return splitmix64(h);
}

bool Shard::contains(const Config& config) const {
  if (count <= 1) return true;
  // Lemire's multiply-shift maps the key onto [0, count) without a division's bias pattern.
  const auto part = static_cast<std::uint32_t>((static_cast<unsigned __int128>(shard_key(config)) * count) >> 64);
  return part + 1 == index;
}

} // namespace memtune::search
