// Every built-in description's access pattern (the model's view) describes
// the launch the description makes: the same block and grid, on three GPUs.
// (While the KernelTemplate classes existed, the ports branch's
// description_equivalence_test checked this beside launches, fills and
// references; recorded_spaces_test checks the spaces against bench/data.)
#include <memtune/model/target_catalog.hpp>
#include <memtune/templates/catalogue.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace memtune;

namespace {

const model::TargetCatalog& catalog() {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}

} // namespace

TEST_CASE("the model sees the block and the grid each launch uses, on three GPUs") {
  for (const KernelDescription* d : templates::descriptions()) {
    REQUIRE(d->has_model());
    const Problem problem = d->complete({});
    for (const char* name : {"h100-sxm", "k20", "a100"}) {
      const Target& target = catalog().find(name);
      CAPTURE(d->name);
      CAPTURE(name);
      const auto configs = d->space(problem, target).enumerate();
      REQUIRE_FALSE(configs.empty());
      // A sample of configurations: replaying accesses is not free.
      for (std::size_t i = 0; i < configs.size(); i += std::max<std::size_t>(1, configs.size() / 8)) {
        const LaunchSpec l = d->launch(configs[i], problem, target);
        const AccessPattern pattern = d->hooks.access_pattern(configs[i], problem, target);
        CHECK(static_cast<std::uint64_t>(pattern.block_threads) == l.block.count());
        CHECK(static_cast<std::uint64_t>(pattern.blocks) == l.grid.count());
      }
    }
  }
}
