// with_catalogue_figures: the local GPU (as the driver describes it) gets the
// figures the driver does not report from its own catalogue entry, from its
// nearest architecture's when the catalogue does not name it, and stated
// assumptions when there is no catalogue; the last two say so.
#include <memtune/measure/target_resolver.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstddef>
#include <optional>
#include <string>

using namespace memtune;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// What local_target() reads from the driver: no latency, schedulers or L2 bandwidth.
Target driver_view(const std::string& name, int cc_major, int cc_minor, int sm_count, std::size_t smem_per_sm = 0) {
  Target t;
  t.name = "local";
  t.display_name = name;
  t.origin = "driver";
  t.cc_major = cc_major;
  t.cc_minor = cc_minor;
  t.sm_count = sm_count;
  t.smem_per_sm = smem_per_sm;
  t.l1_bytes = 0;
  t.smem_carveouts_kb.clear();
  t.memory_latency_ns = 0;
  t.schedulers_per_sm = 0;
  t.l2_bandwidth_gbs = 0;
  return t;
}

// MEMTUNE_TARGETS_DIR set for one scope, restored after.
struct TargetsDir {
  explicit TargetsDir(const std::string& dir) {
    if (const char* saved = std::getenv("MEMTUNE_TARGETS_DIR")) restore = saved;
    ::setenv("MEMTUNE_TARGETS_DIR", dir.c_str(), 1);
  }
  ~TargetsDir() {
    if (restore) ::setenv("MEMTUNE_TARGETS_DIR", restore->c_str(), 1);
    else ::unsetenv("MEMTUNE_TARGETS_DIR");
  }
  TargetsDir(const TargetsDir&) = delete;
  TargetsDir& operator=(const TargetsDir&) = delete;
  std::optional<std::string> restore;
};

} // namespace

TEST_CASE("with_catalogue_figures: a GPU the catalogue names takes its entry's figures, without a note") {
  const TargetsDir dir(MEMTUNE_TEST_TARGETS_DIR);
  const Target entry = load_targets().find("h100-sxm");
  const Target t = with_catalogue_figures(driver_view(entry.display_name, 9, 0, 132, entry.smem_per_sm));
  CHECK(t.memory_latency_ns == entry.memory_latency_ns);
  CHECK(t.schedulers_per_sm == entry.schedulers_per_sm);
  CHECK(t.l2_bandwidth_gbs == entry.l2_bandwidth_gbs);
  // The L1 the model caches global loads in, and what memtune probe measured on this board:
  // without them the local GPU's model and the catalogue entry's ranked sizes differently.
  CHECK(t.l1_bytes == entry.l1_bytes);
  CHECK(t.smem_carveouts_kb == entry.smem_carveouts_kb);
  CHECK(t.measured.has_value() == entry.measured.has_value());
  CHECK(t.figures_note.empty());
}

TEST_CASE("with_catalogue_figures: a GPU the catalogue does not name borrows its nearest architecture's, and says so") {
  const TargetsDir dir(MEMTUNE_TEST_TARGETS_DIR);
  const model::TargetCatalog catalog = load_targets();
  SUBCASE("the same architecture (sm_90)") {
    const Target& h100 = catalog.find("h100-sxm");
    const Target t = with_catalogue_figures(driver_view("NVIDIA GH200 480GB", 9, 0, 132, h100.smem_per_sm));
    CHECK(t.memory_latency_ns == h100.memory_latency_ns);
    CHECK(t.l1_bytes == h100.l1_bytes); // the same shared memory per SM: the same unified L1
    CHECK(t.schedulers_per_sm == 4);
    CHECK(t.l2_bandwidth_gbs == 0); // a board's figure, not the architecture's: left unmodelled
    CHECK(contains(t.figures_note, "has no entry for NVIDIA GH200 480GB"));
    CHECK(contains(t.figures_note, "(sm_90, its nearest architecture)"));
    CHECK(contains(t.sources.at("memory_latency_ns"), "borrowed from "));
  }
  SUBCASE("a newer architecture than any entry: the newest older one") {
    const Target t = with_catalogue_figures(driver_view("NVIDIA B200", 10, 0, 148, 7 * 1024));
    CHECK(t.memory_latency_ns > 0);
    CHECK(t.l1_bytes == 0); // another shared memory per SM: its L1 is not sm_90's
    CHECK(contains(t.figures_note, "(sm_90, its nearest architecture)"));
  }
  SUBCASE("the same major version before a nearer capability of another") {
    const Target t = with_catalogue_figures(driver_view("NVIDIA Jetson AGX Orin", 8, 7, 16));
    CHECK(contains(t.figures_note, "(sm_86, its nearest architecture)"));
  }
}

TEST_CASE("with_catalogue_figures: without a catalogue, stated assumptions, and where it looked") {
  const TargetsDir dir("/nonexistent/memtune/targets");
  const Target t = with_catalogue_figures(driver_view("NVIDIA H100 80GB HBM3", 9, 0, 132));
  CHECK(t.memory_latency_ns == 450);
  CHECK(t.schedulers_per_sm == 4);
  CHECK(t.l2_bandwidth_gbs == 0);
  CHECK(contains(t.figures_note, "MEMTUNE_TARGETS_DIR=/nonexistent/memtune/targets is not a directory"));
  CHECK(contains(t.figures_note, "assumes a 450 ns memory latency"));
  CHECK(contains(t.sources.at("memory_latency_ns"), "assumed"));
}
