// On a GPU: the catalogue name of the GPU in this machine is measured, and
// --predict (resolve_target's `predict`) models its catalogue entry instead.
#include <memtune/measure/device.hpp>
#include <memtune/measure/target_resolver.hpp>

#include <doctest/doctest.h>

using namespace memtune;

TEST_CASE("the local GPU's catalogue name is measured; with predict, its catalogue entry is modeled") {
  const std::vector<std::string> names = catalogue_names(local_target(0));
  if (names.empty()) {
    MESSAGE("the catalogue has no entry for " << local_target(0).display_name << ": nothing to resolve");
    return;
  }
  const ResolvedTarget here = resolve_target(names.front(), 0);
  CHECK(here.measured);
  const ResolvedTarget predicted = resolve_target(names.front(), 0, /*predict=*/true);
  CHECK_FALSE(predicted.measured);
  CHECK(predicted.target.name == names.front());
  CHECK(predicted.target.name == here.target.name);
  CHECK(resolve_target("local", 0, true).measured); // "local" is always this GPU, measured
}
