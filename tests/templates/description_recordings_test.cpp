// The built-in descriptions against what the KernelTemplate classes they
// replaced measured: the spaces recorded on an H100 (bench/data, recorded
// before the switch). Same axes, same pruned axes and reasons, and exactly
// the recorded configurations. (While both existed, the descriptions were
// checked against the classes launch by launch, fill by fill and reference by
// reference: the ports branch's description_equivalence_test.) And on three
// targets, the model sees the block and grid each launch uses.
#include <memtune/model/target_catalog.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/templates/catalogue.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

using namespace memtune;

namespace {

const model::TargetCatalog& catalog() {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}

std::set<std::string> config_texts(const search::Space& space, const std::vector<search::Config>& configs) {
  std::set<std::string> out;
  for (const auto& c : configs) out.insert(space.config_to_json(c).dump());
  return out;
}

} // namespace

TEST_CASE("each built-in description gives the space its template recorded on the H100") {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(MEMTUNE_TEST_BENCH_DATA)) {
    if (entry.path().extension() != ".json" || entry.path().filename().string().rfind("h100_", 0) != 0) continue;
    const nlohmann::json raw = nlohmann::json::parse(std::ifstream(entry.path()));
    if (!raw.contains("trials")) continue; // a target profile, not a recording
    const search::Recording rec = search::load_recording(entry.path());
    const auto descriptions = templates::descriptions();
    const auto it = std::find_if(descriptions.begin(), descriptions.end(),
                                 [&](const KernelDescription* d) { return d->name == rec.template_name; });
    if (it == descriptions.end()) continue; // the probes' spaces
    const KernelDescription& d = **it;
    CAPTURE(entry.path().filename().string());
    const Problem problem = d.complete(rec.problem.get<Problem>());
    const search::Space space = d.space(problem, catalog().find("h100-sxm"));

    REQUIRE(space.axes().size() == rec.space.axes().size());
    for (std::size_t i = 0; i < space.axes().size(); ++i) {
      CAPTURE(space.axes()[i].name);
      CHECK(space.axes()[i].name == rec.space.axes()[i].name);
      CHECK(space.axes()[i].kind == rec.space.axes()[i].kind);
      CHECK(space.axes()[i].values == rec.space.axes()[i].values);
      CHECK(space.axes()[i].labels == rec.space.axes()[i].labels);
    }
    REQUIRE(space.pruned().size() == rec.space.pruned().size());
    for (std::size_t i = 0; i < space.pruned().size(); ++i) {
      CHECK(space.pruned()[i].name == rec.space.pruned()[i].name);
      CHECK(space.pruned()[i].reason == rec.space.pruned()[i].reason);
    }
    std::vector<search::Config> recorded;
    for (const auto& t : rec.trials) recorded.push_back(t.config);
    CHECK(config_texts(space, space.enumerate()) == config_texts(rec.space, recorded));
    ++checked;
  }
  CHECK(checked == 6); // filter, aos_soa read and write, matvec col and row, fdtd
}

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
