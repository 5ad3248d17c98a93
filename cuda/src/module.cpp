#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>

#include <utility>

namespace memtune::cuda {

Module::Module(const std::vector<char>& image) { MEMTUNE_CU(driver_api().cuModuleLoadData(&module_, image.data())); }

Module::~Module() { unload(); }

Module::Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    unload();
    module_ = std::exchange(other.module_, nullptr);
  }
  return *this;
}

CUfunction Module::function(const std::string& lowered_name) const {
  CUfunction fn = nullptr;
  MEMTUNE_CU(driver_api().cuModuleGetFunction(&fn, module_, lowered_name.c_str()));
  return fn;
}

Module::Global Module::global(const std::string& name) const {
  Global g;
  MEMTUNE_CU(driver_api().cuModuleGetGlobal(&g.address, &g.bytes, module_, name.c_str()));
  return g;
}

void Module::unload() noexcept {
  if (!module_) return;
  MEMTUNE_CU_NOTHROW(driver_api().cuModuleUnload(module_));
  module_ = nullptr;
}

} // namespace memtune::cuda
