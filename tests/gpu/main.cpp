// The GPU suite. Without a usable GPU nothing runs: it says so on stderr and
// exits 77, which ctest reports as "Skipped" (SKIP_RETURN_CODE), so CI (which
// has no GPU) stays honest about what it did not test.
#define DOCTEST_CONFIG_IMPLEMENT
#include <memtune/cuda/driver_api.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  if (!memtune::cuda::driver_available()) {
    std::cerr << "memtune GPU tests SKIPPED: " << memtune::cuda::driver_unavailable_reason() << "\n";
    return 77;
  }
  // Measured runs launch their candidates in this build's worker process.
  ::setenv("MEMTUNE_WORKER", MEMTUNE_TEST_WORKER, /*overwrite=*/0);
  doctest::Context context(argc, argv);
  return context.run();
}
