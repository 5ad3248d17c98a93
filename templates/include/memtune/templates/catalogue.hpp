#pragma once
// The templates memtune ships, by name.
#include <memtune/kernel_template.hpp>

#include <string>
#include <vector>

namespace memtune::templates {

std::vector<const KernelTemplate*> all();
// Throws std::invalid_argument listing the known names.
const KernelTemplate& find(const std::string& name);

} // namespace memtune::templates
