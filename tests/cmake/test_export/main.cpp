// Links an installed (or build-tree) memtune and uses it without a GPU: the
// filter's space for an sm_90 target, one NVRTC compile, and the package's
// own files: the target catalogue and the worker must be the ones of the
// prefix find_package found (argv[1]), wherever that prefix was moved.
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/model/install_layout.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/filter.hpp>

#include <filesystem>
#include <iostream>
#include <string>

namespace {

bool under(const std::filesystem::path& p, const std::filesystem::path& prefix) {
  const std::string a = std::filesystem::weakly_canonical(p).string();
  const std::string b = std::filesystem::weakly_canonical(prefix).string();
  return a.compare(0, b.size(), b) == 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer <memtune prefix>\n";
    return 2;
  }
  const std::filesystem::path prefix = argv[1];
  memtune::Target t;
  t.cc_major = 9;
  t.max_threads_per_block = 1024;
  t.smem_per_block_optin = 227 * 1024;
  const memtune::Problem p{{"n", 1000}, {"taps", 21}};
  const auto& f = memtune::templates::filter_description();
  const auto configs = f.space(p, t).enumerate();
  const auto result = memtune::nvrtc_compile(f.compile_request(f.launch(configs.front(), p, t), 90));
  std::cout << configs.size() << " configurations; first compiles: " << (result.ok ? "yes" : "no") << "\n";

  const auto folder = memtune::targets_folder();
  const auto k20 = memtune::load_targets().find("k20");
  std::cout << "catalogue: " << folder.string() << " (k20: " << k20.display_name << ")\n";
  bool worker_found = false;
  for (const auto& w : memtune::worker_candidates())
    if (std::filesystem::is_regular_file(w) && under(w, prefix)) {
      std::cout << "worker: " << w.string() << "\n";
      worker_found = true;
      break;
    }
  if (!under(folder, prefix)) std::cerr << "the catalogue is not the package's (" << prefix.string() << ")\n";
  if (!worker_found) std::cerr << "no worker in the package (" << prefix.string() << ")\n";
  return result.ok && !configs.empty() && under(folder, prefix) && worker_found ? 0 : 1;
}
