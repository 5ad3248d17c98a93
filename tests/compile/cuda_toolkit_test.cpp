#include <memtune/compile/cuda_toolkit.hpp>

#include "../temp_dir.hpp"

#include <doctest/doctest.h>

using namespace memtune;
namespace fs = std::filesystem;

TEST_CASE("the toolkit is found from NVRTC's own folder, with include and include/cccl") {
  const CudaToolkit& t = cuda_toolkit();
  REQUIRE_FALSE(t.root.empty());
  REQUIRE(t.include_dirs.size() == 2);
  CHECK(fs::exists(t.include_dirs[0] / "cooperative_groups.h"));
  CHECK(fs::exists(t.include_dirs[1] / "cuda" / "std" / "type_traits"));
  CHECK(fs::exists(t.nvcc)); // the test machines have the toolkit's nvcc
}

TEST_CASE("CUDA_PATH comes first; a folder that is no toolkit is passed over") {
  const memtune::testing::TempDir fake;
  fs::create_directories(fake.path / "include" / "cccl");
  fs::create_directories(fake.path / "bin");
  (void)fake.file("include/cuda_runtime.h", "");
  (void)fake.file("bin/nvcc", "");
  const CudaToolkit t = find_cuda_toolkit(fake.path.string(), {}, "");
  CHECK(t.root == fs::canonical(fake.path));
  CHECK(t.include_dirs.size() == 2);
  CHECK(t.nvcc == fs::canonical(fake.path / "bin" / "nvcc"));
  const CudaToolkit not_one = find_cuda_toolkit((fake.path / "bin").string(), {}, "");
  CHECK(not_one.root != fs::canonical(fake.path / "bin"));
  CHECK(not_one.searched.find("$CUDA_PATH=") != std::string::npos);
}
