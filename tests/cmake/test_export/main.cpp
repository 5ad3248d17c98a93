// Links the installed library and uses it without a GPU: the filter's space
// for an sm_90 target, and one NVRTC compile.
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/templates/filter.hpp>

#include <iostream>

int main() {
  memtune::Target t;
  t.cc_major = 9;
  t.max_threads_per_block = 1024;
  t.smem_per_block_optin = 227 * 1024;
  const memtune::Problem p{{"n", 1000}, {"taps", 21}};
  const auto& f = memtune::templates::filter_description();
  const auto configs = f.space(p, t).enumerate();
  const auto result = memtune::nvrtc_compile(f.compile_request(f.launch(configs.front(), p, t), 90));
  std::cout << configs.size() << " configurations; first compiles: " << (result.ok ? "yes" : "no") << "\n";
  return result.ok && !configs.empty() ? 0 : 1;
}
