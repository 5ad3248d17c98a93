// The run-time NVRTC loader (nvrtc_library.hpp) against fixture libraries
// (tests/fixtures/fake_nvrtc.cpp): one that reports NVRTC 11.8 with
// sm_35, one that reports NVRTC 12.0 without it. No real NVRTC 11.8 needed;
// with MEMTUNE_TEST_NVRTC_KEPLER set to one, the last case compiles a real
// template for sm_35 with it.
#include "compile/src/python_nvrtc.hpp"

#include <memtune/compile/compile_cache.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/compile/nvrtc_library.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/templates/fdtd.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

const fs::path kepler_folder = MEMTUNE_FAKE_NVRTC_11_DIR; // libnvrtc.so.11.2: NVRTC 11.8, sm_35 ... sm_87
const fs::path newer_folder = MEMTUNE_FAKE_NVRTC_12_DIR;  // libnvrtc.so.12: NVRTC 12.0, sm_50 ... sm_90

CompileRequest request(int cc) {
  CompileRequest r;
  r.source = "template <int N> __global__ void k(float* p) { p[threadIdx.x] *= N; }";
  r.source_name = "k.cu";
  r.name_expression = "k<2>";
  r.compute_capability = cc;
  return r;
}

// Unsets MEMTUNE_NVRTC_KEPLER for the test, restoring it afterwards (unset
// again if it was: a test that sets it to a fake NVRTC must not hand that to
// the tests after it in the same process, which model Kepler with it).
struct NoEnvironmentSetting {
  std::string saved;
  bool had = false;
  NoEnvironmentSetting() {
    if (const char* v = std::getenv("MEMTUNE_NVRTC_KEPLER")) {
      had = true;
      saved = v;
    }
    ::unsetenv("MEMTUNE_NVRTC_KEPLER");
  }
  ~NoEnvironmentSetting() {
    if (had) ::setenv("MEMTUNE_NVRTC_KEPLER", saved.c_str(), 1);
    else ::unsetenv("MEMTUNE_NVRTC_KEPLER");
  }
};

} // namespace

TEST_CASE("an NVRTC 11.8 library is found, loaded and compiles sm_35 candidates") {
  const auto nvrtc = NvrtcLibrary::open(kepler_folder); // a folder: its libnvrtc.so.*
  CHECK(nvrtc->version() == "11.8");
  CHECK(nvrtc->supports(35));
  CHECK(nvrtc->path().filename() == "libnvrtc.so.11.2");
  CHECK(nvrtc->description().find("NVRTC 11.8 (") == 0);
  CHECK(NvrtcLibrary::open(nvrtc->path()) == nvrtc); // loaded once

  CompileRequest r = request(35);
  r.nvrtc_library = nvrtc->path().string();
  const CompileResult result = nvrtc_compile(r);
  REQUIRE(result.ok);
  CHECK(result.resources.registers == 72);
  CHECK(result.compiler == nvrtc->description());
  CHECK(result.lowered_name == "_Z4fakev");

  r.source = "syntax error";
  const CompileResult failed = nvrtc_compile(r);
  CHECK_FALSE(failed.ok);
  CHECK(failed.log.find("expected a declaration") != std::string::npos);
}

TEST_CASE("choose_compiler: the linked NVRTC where it can, a found NVRTC 11.8 for Kepler, else the nearest arch and why") {
  const NoEnvironmentSetting no_env;
  const CompilerChoice hopper = choose_compiler(90, std::nullopt, {kepler_folder});
  CHECK(hopper.compute_capability == 90);
  CHECK(hopper.nvrtc_library.empty());
  CHECK(hopper.note.empty());

  // Found: the first search folder holding an NVRTC that compiles sm_35.
  const CompilerChoice found = choose_compiler(35, std::nullopt, {"/nonexistent", newer_folder, kepler_folder});
  CHECK(found.compute_capability == 35);
  CHECK(fs::path(found.nvrtc_library).filename() == "libnvrtc.so.11.2");
  CHECK(found.compiler.find("NVRTC 11.8") == 0);

  // Not found: today's fallback, and the note says so.
  const CompilerChoice fallback = choose_compiler(35, std::nullopt, {"/nonexistent", newer_folder});
  CHECK(fallback.nvrtc_library.empty());
  CHECK(fallback.compute_capability == nearest_supported_arch(35));
  CHECK(fallback.note.find("no NVRTC 11.8 was found") != std::string::npos);
  CHECK(fallback.note.find("nvidia-cuda-nvrtc-cu11") != std::string::npos);
}

TEST_CASE("python_nvrtc_folders: the interpreter says where nvidia.cuda_nvrtc lies, nothing when it cannot") {
  const NoEnvironmentSetting no_env;
  // A stand-in interpreter that answers as python3 with the package installed
  // would: one lib folder per line (here the fake NVRTC 11.8's).
  const fs::path fake = fs::temp_directory_path() / "memtune-fake-python3";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\necho '" << kepler_folder.string() << "'\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  const auto folders = detail::python_nvrtc_folders(fake.string());
  REQUIRE(folders.size() == 1);
  CHECK(folders.front() == kepler_folder);
  CHECK(choose_compiler(35, std::nullopt, folders).compiler.find("NVRTC 11.8") == 0);
  fs::remove(fake);
  CHECK(detail::python_nvrtc_folders("/nonexistent/python3").empty());
}

TEST_CASE("a configured NVRTC that is missing or of the wrong version is an error that names it") {
  const NoEnvironmentSetting no_env;
  CHECK(choose_compiler(35, kepler_folder, {}).compute_capability == 35);
  CHECK_THROWS_WITH_AS(choose_compiler(35, fs::path("/nonexistent/nvrtc"), {}),
                       doctest::Contains("/nonexistent/nvrtc: no such file or folder"), NvrtcLibraryError);
  try {
    (void)choose_compiler(35, newer_folder, {});
    FAIL("an NVRTC 12.0 was accepted for sm_35");
  } catch (const NvrtcLibraryError& e) {
    const std::string message = e.what();
    CHECK(message.find("NVRTC 12.0 (") != std::string::npos);
    CHECK(message.find("cannot compile sm_35") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(NvrtcLibrary::open(fs::temp_directory_path()), doctest::Contains("no libnvrtc.so*"),
                       NvrtcLibraryError);

  ::setenv("MEMTUNE_NVRTC_KEPLER", newer_folder.c_str(), 1);
  CHECK_THROWS_WITH_AS(choose_compiler(35, std::nullopt, {kepler_folder}), doctest::Contains("MEMTUNE_NVRTC_KEPLER"),
                       NvrtcLibraryError);
  ::setenv("MEMTUNE_NVRTC_KEPLER", kepler_folder.c_str(), 1);
  CHECK(choose_compiler(35, std::nullopt, {}).compiler.find("NVRTC 11.8") == 0);
}

TEST_CASE("compile-cache keys name the compiler: a loaded NVRTC never shares an entry with the linked one") {
  CompileRequest linked = request(75);
  CompileRequest loaded = linked;
  loaded.nvrtc_library = NvrtcLibrary::open(kepler_folder)->path().string();
  CHECK(CompileCache::key_digest(linked) != CompileCache::key_digest(loaded));
  CHECK(CompileCache::key_text(loaded).find("NVRTC 11.8 (") != std::string::npos);
}

TEST_CASE("a real NVRTC 11.8 compiles the fdtd template for sm_35 (MEMTUNE_TEST_NVRTC_KEPLER)") {
  const char* path = std::getenv("MEMTUNE_TEST_NVRTC_KEPLER");
  if (!path || !*path) {
    MESSAGE("skipped: set MEMTUNE_TEST_NVRTC_KEPLER to an NVRTC 11.8 lib folder to run it");
    return;
  }
  const auto nvrtc = NvrtcLibrary::open(path);
  REQUIRE(nvrtc->supports(35));
  const KernelDescription& fdtd = templates::fdtd_description();
  const Problem problem = complete_problem(fdtd.problem, {});
  const Target k20 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("k20");
  const search::Config config = fdtd.default_config(problem, k20);
  CompileRequest r = fdtd.compile_request(fdtd.launch(config, problem, k20), 35);
  r.nvrtc_library = nvrtc->path().string();
  const CompileResult result = nvrtc_compile(r);
  REQUIRE_MESSAGE(result.ok, result.log);
  CHECK(result.resources.registers > 0);
  CHECK(result.log.find("sm_35") != std::string::npos);
}
