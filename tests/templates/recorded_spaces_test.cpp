// The built-in descriptions against the spaces recorded on an H100
// (bench/data/h100_*.json, measured with the KernelTemplate classes the
// descriptions replace): at the recorded problem on the h100-sxm target, the
// recorded axes and exactly the recorded configurations, each of which
// launches, inside a space that may have grown since.
// The recorded figures (docs/results.md, docs/search.md) stay about the
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

// A space that grew since its recording (new kernels as new axes or values:
// fdtd's ring scheme, matvec's col kernel, filter's direct staging) must still
// hold the recorded space exactly where the new axes take their first value
// (the kernels the recording measured).
TEST_CASE("each description's space at a recorded H100 problem holds the recorded space") {
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
    std::vector<std::string> new_axes; // in the space, not in the recording
    for (const auto& axis : space.axes()) {
      CAPTURE(axis.name);
      const auto recorded = std::find_if(rec.space.axes().begin(), rec.space.axes().end(),
                                         [&](const search::Axis& r) { return r.name == axis.name; });
      if (recorded == rec.space.axes().end()) {
        new_axes.push_back(axis.name);
        continue;
      }
      CHECK(axis.kind == recorded->kind);
      for (const std::int64_t v : recorded->values)
        CHECK(std::find(axis.values.begin(), axis.values.end(), v) != axis.values.end());
      CHECK(std::equal(recorded->labels.begin(), recorded->labels.end(), axis.labels.begin(),
                       axis.labels.begin() + static_cast<std::ptrdiff_t>(std::min(axis.labels.size(), recorded->labels.size()))));
    }
    CHECK(space.axes().size() == rec.space.axes().size() + new_axes.size());
    REQUIRE(space.pruned().size() == rec.space.pruned().size());
    for (std::size_t i = 0; i < space.pruned().size(); ++i)
      CHECK(space.pruned()[i].reason == rec.space.pruned()[i].reason);

    // The enumerated configurations whose every axis holds a recorded value
    // (the new axes their first value) are the recorded ones.
    std::vector<search::Config> recorded;
    for (const auto& t : rec.trials) recorded.push_back(t.config);
    std::vector<search::Config> enumerated;
    for (search::Config c : space.enumerate()) {
      bool old_space = true;
      for (const auto& axis : space.axes()) {
        const auto r = std::find_if(rec.space.axes().begin(), rec.space.axes().end(),
                                    [&](const search::Axis& a) { return a.name == axis.name; });
        const std::int64_t v = c.at(axis.name);
        if (r == rec.space.axes().end()) old_space = old_space && v == axis.values.front();
        else old_space = old_space && std::find(r->values.begin(), r->values.end(), v) != r->values.end();
      }
      if (!old_space) continue;
      search::Config trimmed;
      for (const auto& axis : rec.space.axes()) trimmed.set(axis.name, c.at(axis.name));
      enumerated.push_back(trimmed);
      CHECK_NOTHROW((void)d.launch(c, problem, h100));
    }
    CHECK(enumerated.size() == recorded.size());
    std::sort(recorded.begin(), recorded.end());
    std::sort(enumerated.begin(), enumerated.end());
    CHECK(enumerated == recorded);
  }
}
