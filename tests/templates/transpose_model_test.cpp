// The transpose's predicted ranking from its access pattern and the model
// (no GPU; every candidate compiled by NVRTC for sm_90, and for sm_75 in
// place of the K20's sm_35): the padded tile is predicted faster than the
// unpadded one on a current GPU and on Kepler, and the pick is padded.
#include <memtune/model/target_catalog.hpp>
#include <memtune/templates/transpose.hpp>
#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace memtune;

TEST_CASE("transpose modeled on h100-sxm and k20: padding the tile wins, as in the 2008 article") {
  const model::TargetCatalog catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  for (const char* name : {"h100-sxm", "k20"}) {
    CAPTURE(name);
    TuneOptions o;
    o.use_cache = false;
    o.exact_top = 0; // predict every candidate
    const TuningResult r =
        tune_modeled(templates::transpose_description(), {{"rows", 4096}, {"cols", 4096}}, catalog.find(name), o);
    CHECK(r.time_modeled);
    std::map<std::string, double> predicted; // [seconds] by "tile x tile_rows x block_rows pad"
    for (const auto& e : r.evaluations) {
      CAPTURE(r.space.format(e.config));
      REQUIRE(e.ok());
      REQUIRE(e.timing.has_value());
      // The tile (with the 8 rows above it) is the kernel's only shared memory, and nothing spills.
      CHECK(e.resources.static_smem_bytes ==
            static_cast<std::size_t>((e.config.at("tile_rows") + 8) * (e.config.at("tile") + e.config.at("pad")) * 4));
      CHECK_FALSE(e.resources.spills());
      predicted[std::to_string(e.config.at("tile")) + "x" + std::to_string(e.config.at("tile_rows")) + "x" +
                std::to_string(e.config.at("block_rows")) + " pad" + std::to_string(e.config.at("pad"))] =
          e.timing->median_s;
    }
    // The article's 32 x 32 tile, 32 x 8 block: the unpadded tile's column reads are 32-way conflicts.
    CHECK(predicted.at("32x32x8 pad1") < predicted.at("32x32x8 pad0"));
    CHECK(predicted.at("64x32x8 pad1") < predicted.at("64x32x8 pad0"));
    REQUIRE(r.best() != nullptr);
    CHECK(r.best()->config.at("pad") == 1);
    MESSAGE(std::string(name) << ": best " << r.space.format(r.best()->config) << ", 32x32x8 predicted "
                 << predicted.at("32x32x8 pad1") * 1e6 << " us padded, " << predicted.at("32x32x8 pad0") * 1e6
                 << " us unpadded");
  }
}
