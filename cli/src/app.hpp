#pragma once
// The memtune command line, as a function so tests can drive it.
#include <ostream>

namespace memtune::cli {

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;     // the command failed (bad file, nothing worked, ...)
inline constexpr int kExitUsage = 2;     // bad arguments
inline constexpr int kExitNoDevice = 3;  // a measurement was asked for and there is no GPU
inline constexpr int kExitEnergyRefused = 4; // --objective energy|edp and the GPU's meters cannot carry it

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace memtune::cli
