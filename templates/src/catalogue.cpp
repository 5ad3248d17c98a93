#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>

#include <stdexcept>

namespace memtune::templates {

std::vector<const KernelTemplate*> all() { return {&filter(), &matvec(), &aos_soa(), &fdtd()}; }

const KernelTemplate& find(const std::string& name) {
  std::string known;
  for (const KernelTemplate* t : all()) {
    if (t->name() == name) return *t;
    known += (known.empty() ? "" : ", ") + t->name();
  }
  throw std::invalid_argument("unknown template '" + name + "' (known: " + known + ")");
}

const KernelDescription& find_description(const std::string& name) {
  std::string known;
  for (const KernelDescription* d : descriptions()) {
    if (d->name == name) return *d;
    known += (known.empty() ? "" : ", ") + d->name;
  }
  throw std::invalid_argument("unknown template '" + name + "' (known: " + known + ")");
}

} // namespace memtune::templates
