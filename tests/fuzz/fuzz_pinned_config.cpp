// MEMTUNE_CONFIG, the configuration an application's environment pins: any
// text either pins a configuration valid for the kernel here, pins nothing
// for it (keyed by other kernels' names) or is an InputError naming the
// variable. Run for the filter (ordinal parameters, a pruned one, a
// constraint) and aos_soa (a categorical layout) on the catalogue's H100.
#include "harness.hpp"

#include <memtune/launch/config_lookup.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/filter.hpp>

#include <cstdlib>

namespace {

const memtune::Target& h100() {
  static const memtune::model::TargetCatalog catalog =
      memtune::model::TargetCatalog::load_directory(MEMTUNE_FUZZ_TARGETS_DIR);
  return catalog.find("h100-sxm");
}

void pin(const memtune::KernelDescription& kernel, const std::string& text) {
  memtune::LookupEnvironment environment;
  environment.pinned = text;
  const memtune::Problem problem = kernel.complete({{"n", 1000}});
  const memtune::ConfigLookup l = memtune::look_up_config(kernel, problem, h100(), nullptr, {}, environment);
  if (l.source == memtune::ConfigLookup::Source::pinned) {
    if (kernel.space(problem, h100()).violation(l.config)) std::abort(); // a pinned configuration is valid here
  } else if (l.source != memtune::ConfigLookup::Source::tune) {
    std::abort(); // nothing pinned, no store: tuning is next
  }
}

} // namespace

MEMTUNE_FUZZ_TEXT(text) {
  for (const memtune::KernelDescription* kernel :
       {&memtune::templates::filter_description(), &memtune::templates::aos_soa_description()}) {
    try {
      pin(*kernel, text);
    } catch (const memtune::InputError& e) {
      if (e.file() != "MEMTUNE_CONFIG") std::abort(); // the error names the variable
    }
  }
}
