#include <memtune/io/number_text.hpp>

#include <cstdio>

namespace memtune {

std::string number_text(const char* format, double value) {
  char buf[128];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

} // namespace memtune
