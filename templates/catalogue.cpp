#include <memtune/templates/catalogue.hpp>

#include <stdexcept>

namespace memtune::templates {

const KernelDescription& find_description(const std::string& name) {
  std::string known;
  for (const KernelDescription* d : descriptions()) {
    if (d->name == name) return *d;
    known += (known.empty() ? "" : ", ") + d->name;
  }
  throw std::invalid_argument("unknown template '" + name + "' (known: " + known + ")");
}

} // namespace memtune::templates
