#pragma once
// The current UTC time formatted with strftime, for timestamps in JSON files.
#include <ctime>
#include <string>

namespace memtune {

inline std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

} // namespace memtune
