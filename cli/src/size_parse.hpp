#pragma once
// Parses problem sizes as people write them: "16M" = 16 * 2^20, "1000003",
// "64K", "1G". Binary multipliers, as sizes of arrays usually are.
#include <cstdint>
#include <optional>
#include <string>

namespace memtune::cli {

std::optional<std::int64_t> parse_size(const std::string& text);

} // namespace memtune::cli
