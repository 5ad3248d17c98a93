#pragma once
// The body of memtune-worker, the process that launches candidates for a
// tuning process (docs: README "What happens to a bad candidate").
// Descriptions arrive as data; one with C++ callbacks (a verify_with
// reference, a custom fill, a baseline factory) cannot, and arrives by name:
// a program that tunes such descriptions in isolation links this with a
// lookup of them. memtune's own worker has none (built_ins is empty).
//
//   int main(int argc, char** argv) {
//     return memtune::isolation::worker_main(argc, argv, [](const std::string& name) {
//       return my_catalogue_find(name);   // nullptr when unknown
//     });
//   }
//
// Arguments: --fd N (the connection, default 3), --parent PID (exit at once
// when that process is gone, and die with it).
#include <memtune/description/kernel_description.hpp>

#include <functional>
#include <string>

namespace memtune::isolation {

// The built-in description of that name, or nullptr.
using BuiltInDescriptions = std::function<const KernelDescription*(const std::string& name)>;

int worker_main(int argc, char** argv, const BuiltInDescriptions& built_ins);

} // namespace memtune::isolation
