#pragma once
// The JSON form of a compiled kernel's resources (ptxas' report), one for
// every file and message that carries them: the worker's result messages,
// journals, recordings' trials and profile stores.
//
//   {"registers": 40, "static_smem_bytes": 0, "stack_frame_bytes": 0,
//    "spill_store_bytes": 0, "spill_load_bytes": 0, "max_threads_per_block": 128}
//
// max_threads_per_block only where the kernel bounds its blocks. Read back
// range-checked (these come from files a user may edit): registers in
// [0, 255] (ptxas' per-thread limit), bytes in [0, 1 GiB], the bound in
// [1, 2^20]; a field left out is 0. Errors are InputError naming the field.
#include <memtune/compile/compile_request.hpp>
#include <memtune/io/json_fields.hpp>

#include <nlohmann/json.hpp>

namespace memtune {

[[nodiscard]] nlohmann::json kernel_resources_to_json(const KernelResources& r);
[[nodiscard]] KernelResources kernel_resources_from_json(const io::JsonFields& j);

} // namespace memtune
