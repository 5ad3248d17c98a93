// A compiled kernel's resources: ptxas' report, the CUBIN's block bound, and
// the one wording for a block past it.
#include <memtune/compile/kernel_resources.hpp>

#include <doctest/doctest.h>

using namespace memtune;

TEST_CASE("ptxas report parsing") {
  const std::string log = "ptxas info    : Compiling entry function '_Z1aPf' for 'sm_90'\n"
                          "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
                          "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem\n"
                          "ptxas info    : Compiling entry function '_Z1bPf' for 'sm_90'\n"
                          "ptxas info    : Used 7 registers\n";
  const KernelResources a = parse_ptxas_report(log, "_Z1aPf");
  CHECK(a.registers == 40);
  CHECK(a.static_smem_bytes == 2048);
  CHECK(a.stack_frame_bytes == 8);
  CHECK(a.spill_store_bytes == 4);
  CHECK(a.spill_load_bytes == 12);
  CHECK(a.spills());
  const KernelResources b = parse_ptxas_report(log, "_Z1bPf");
  CHECK(b.registers == 7);
  CHECK(b.static_smem_bytes == 0);
  CHECK_FALSE(b.spills());
}

TEST_CASE("bytes that are not a CUBIN leave the block bound unknown and keep ptxas' figures") {
  const std::string log = "ptxas info    : Compiling entry function '_Z1aPf' for 'sm_90'\n"
                          "ptxas info    : Used 12 registers, 64 bytes smem\n";
  const KernelResources r = compiled_kernel_resources(log, "_Z1aPf", std::vector<char>{'n', 'o', 't'});
  CHECK(r.registers == 12);
  CHECK(r.static_smem_bytes == 64);
  CHECK(r.max_threads_per_block == 0);
}

TEST_CASE("a block over the kernel's bound is refused in one wording, none without a bound") {
  CHECK_FALSE(block_bound_violation(256, 0, 30));
  CHECK_FALSE(block_bound_violation(128, 128, 30));
  const auto why = block_bound_violation(256, 128, 26);
  REQUIRE(why);
  CHECK(*why == "blocks of 256 threads, but the compiled kernel allows at most 128 (its __launch_bounds__, or 26 "
                "registers per thread)");
}
