// A user's kernel from its description file, measured and verified on the
// GPU: through the library (tune) and through `memtune tune --spec`.
#include "app.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/tune/tuner.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace {
const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";
}

TEST_CASE("a user's transpose: every configuration verified against the reference configuration, at odd sizes") {
  const memtune::KernelDescription d = memtune::load_description(kAssets / "transpose.json");
  for (const memtune::Problem& p : {memtune::Problem{{"rows", 1}, {"cols", 1}}, memtune::Problem{{"rows", 1000}, {"cols", 3001}},
                                    memtune::Problem{{"rows", 4096}, {"cols", 4096}}}) {
    CAPTURE(memtune::format_problem(p));
    const memtune::TuningResult r = memtune::tune(d, p, quick_options());
    check_whole_space_verified(r);
    CHECK(r.kernel_fingerprint == d.fingerprint());
    CHECK(r.best()->gbps > 0);
  }
}

TEST_CASE("a kernel with an inout buffer, a header, an include path and a reference kernel") {
  const memtune::KernelDescription d = memtune::load_description(kAssets / "scale.json");
  for (const char* op : {"scale", "axpy"}) {
    CAPTURE(op);
    const memtune::TuningResult r =
        memtune::tune(d, {{"n", 1000003}, {"op", std::string(op) == "axpy" ? 1 : 0}}, quick_options());
    check_whole_space_verified(r);
  }
}

TEST_CASE("the README's saxpy: an inout buffer re-filled before every launch, verified") {
  const memtune::KernelDescription d = memtune::load_description(kAssets / "saxpy.json");
  check_whole_space_verified(memtune::tune(d, {{"n", 1000003}}, quick_options()));
}

TEST_CASE("memtune tune --spec measures, ranks against the copy ceiling and saves") {
  const auto store = std::filesystem::temp_directory_path() / "memtune-spec-gpu-store.json";
  std::filesystem::remove(store);
  const std::string spec = (kAssets / "transpose.json").string();
  const char* argv[] = {"memtune", "tune", "--spec", spec.c_str(), "--set", "rows=4K,cols=4K", "--save",
                        store.c_str(), "-q"};
  std::ostringstream out, err;
  const int code = memtune::cli::run(9, argv, out, err);
  CAPTURE(err.str());
  CHECK(code == memtune::cli::kExitOk);
  std::cout << out.str();
  CHECK(out.str().find("measured on") != std::string::npos);
  CHECK(out.str().find("copy ceiling") != std::string::npos);
  CHECK(out.str().find("%ceil") != std::string::npos);
  CHECK(out.str().find("best: TILE=") != std::string::npos);
  CHECK(std::filesystem::exists(store));
}

TEST_CASE("a grid.sync() kernel is launched cooperatively and verified; a grid the GPU cannot hold at once is refused") {
  const memtune::KernelDescription d = memtune::load_description(kAssets / "grid_sum.json");
  const memtune::TuningResult r = memtune::tune(d, {{"n", 1000003}}, quick_options());
  check_whole_space_verified(r); // no wrong result, no failed launch
  for (const auto& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CAPTURE(e.reason);
    if (!e.ok()) {
      CHECK(e.status == memtune::Status::exceeds_device_limits);
      CHECK(e.reason.find("a cooperative launch of ") == 0);
    }
  }
  // 132 blocks of 256 threads fit every GPU memtune runs on: at least that one ran.
  CHECK(std::any_of(r.evaluations.begin(), r.evaluations.end(), [](const memtune::Evaluation& e) {
    return e.ok() && e.config.at("BLOCK") == 256 && e.config.at("GRID") == 132;
  }));
}
