// The built-in descriptions against the spaces recorded on an H100
// (bench/data/h100_*.json, measured with the KernelTemplate classes the
// descriptions replace): at the recorded problem on the h100-sxm target, the
// same axes and exactly the recorded configurations, each of which launches.
// The recorded figures (docs/results-h100.md, docs/search.md) stay about the
// spaces memtune tunes.
#include <memtune/model/target_catalog.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/templates/catalogue.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace memtune;

TEST_CASE("each description's space at a recorded H100 problem is the recorded space") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  for (const char* file : {"h100_filter_16M.json", "h100_matvec_col_8192.json", "h100_matvec_row_8192.json",
                           "h100_aos_soa_read_16M.json", "h100_aos_soa_write_16M.json",
                           "h100_fdtd_512x512x256_r4.json"}) {
    CAPTURE(file);
    const search::Recording rec = search::load_recording(std::filesystem::path(MEMTUNE_TEST_BENCH_DATA_DIR) / file);
    const KernelDescription& d = templates::find_description(rec.template_name);
    Problem given;
    for (const auto& [name, value] : rec.problem.items()) given[name] = value.get<std::int64_t>();
    const Problem problem = d.complete(given);
    CHECK(problem == given);

    const search::Space space = d.space(problem, h100);
    REQUIRE(space.axes().size() == rec.space.axes().size());
    for (std::size_t i = 0; i < space.axes().size(); ++i) {
      CAPTURE(space.axes()[i].name);
      CHECK(space.axes()[i].name == rec.space.axes()[i].name);
      CHECK(space.axes()[i].kind == rec.space.axes()[i].kind);
      CHECK(space.axes()[i].values == rec.space.axes()[i].values);
      CHECK(space.axes()[i].labels == rec.space.axes()[i].labels);
    }
    REQUIRE(space.pruned().size() == rec.space.pruned().size());
    for (std::size_t i = 0; i < space.pruned().size(); ++i)
      CHECK(space.pruned()[i].reason == rec.space.pruned()[i].reason);

    std::vector<search::Config> recorded;
    for (const auto& t : rec.trials) recorded.push_back(t.config);
    std::vector<search::Config> enumerated = space.enumerate();
    CHECK(enumerated.size() == recorded.size());
    std::sort(recorded.begin(), recorded.end());
    std::sort(enumerated.begin(), enumerated.end());
    CHECK(enumerated == recorded);
    for (const auto& c : enumerated) CHECK_NOTHROW((void)d.launch(c, problem, h100));
  }
}
