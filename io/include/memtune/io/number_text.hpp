#pragma once
// One number through a printf format, for the many "%.2f us" of the printed
// output: number_text("%.2f us", 4.9e-5 * 1e6) == "49.00 us".
#include <string>

namespace memtune {

// `format` takes exactly one double conversion (%f, %g, %e with flags).
[[nodiscard]] std::string number_text(const char* format, double value);

} // namespace memtune
