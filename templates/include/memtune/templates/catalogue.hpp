#pragma once
// The templates memtune ships, by name.
#include <memtune/description/kernel_description.hpp>

#include <string>
#include <vector>

namespace memtune::templates {

// Every built-in template's kernel description, in catalogue order
// (templates/catalogue.cmake; defined by the generated registry).
std::vector<const KernelDescription*> descriptions();
// Throws std::invalid_argument listing the known names.
const KernelDescription& find_description(const std::string& name);

} // namespace memtune::templates
