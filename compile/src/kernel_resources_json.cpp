#include <memtune/compile/kernel_resources_json.hpp>

namespace memtune {

nlohmann::json kernel_resources_to_json(const KernelResources& r) {
  nlohmann::json j = {{"registers", r.registers},
                      {"static_smem_bytes", r.static_smem_bytes},
                      {"stack_frame_bytes", r.stack_frame_bytes},
                      {"spill_store_bytes", r.spill_store_bytes},
                      {"spill_load_bytes", r.spill_load_bytes}};
  if (r.max_threads_per_block > 0) j["max_threads_per_block"] = r.max_threads_per_block; // absent: no bound
  return j;
}

KernelResources kernel_resources_from_json(const io::JsonFields& j) {
  j.require_object();
  constexpr std::size_t kMaxBytes = std::size_t{1} << 30; // far beyond any block's shared memory or frame
  const auto bytes = [&](const char* name) {
    const auto f = j.find(name);
    return f ? f->integer<std::size_t>(0, kMaxBytes) : std::size_t{0};
  };
  KernelResources r;
  if (const auto f = j.find("registers")) r.registers = f->integer<int>(0, 255); // ptxas' per-thread limit
  r.static_smem_bytes = bytes("static_smem_bytes");
  r.stack_frame_bytes = bytes("stack_frame_bytes");
  r.spill_store_bytes = bytes("spill_store_bytes");
  r.spill_load_bytes = bytes("spill_load_bytes");
  if (const auto f = j.find("max_threads_per_block")) r.max_threads_per_block = f->integer<int>(1, 1 << 20);
  return r;
}

} // namespace memtune
