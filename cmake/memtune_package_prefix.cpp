// Compiled into each application that links memtune::memtune from an installed
// package (memtuneConfig.cmake adds it with MEMTUNE_PACKAGE_PREFIX set to the
// prefix find_package found): the static libraries inside the application then
// find that prefix's target catalogue and worker, wherever the application lies.
#include <memtune/model/install_layout.hpp>

namespace {
const bool memtune_package_prefix_registered = (memtune::register_package_prefix(MEMTUNE_PACKAGE_PREFIX), true);
} // namespace
