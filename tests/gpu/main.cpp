// The GPU suite. Without a usable GPU every case is skipped, and the run says
// so on stderr and exits 0, so CI (which has no GPU) stays honest about what it
// did not test.
#define DOCTEST_CONFIG_IMPLEMENT
#include <memtune/cuda/driver_api.hpp>

#include <doctest/doctest.h>

#include <iostream>

int main(int argc, char** argv) {
  if (!memtune::cuda::driver_available()) {
    std::cerr << "memtune GPU tests SKIPPED: " << memtune::cuda::driver_unavailable_reason() << "\n";
    return 0;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
