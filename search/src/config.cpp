#include <memtune/search/config.hpp>

#include <stdexcept>

namespace memtune::search {

std::int64_t Config::at(const std::string& axis) const {
  auto it = values_.find(axis);
  if (it == values_.end()) throw std::out_of_range("config has no value for axis '" + axis + "'");
  return it->second;
}

} // namespace memtune::search
