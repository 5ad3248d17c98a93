#pragma once
// Which GPUs a worker's driver sees. Without persistence mode, a process's
// cuInit initialises every GPU it can see, and processes starting at once
// wait on each other there: on a host of four H200s, four workers that each
// saw every GPU took 1.25-1.61 s to start, four that each saw only their own
// 1.08-1.13 s (bench/devices/driver_start.sh). So each worker is shown only
// its own GPU through CUDA_VISIBLE_DEVICES, where the value that does so is
// known without initialising the driver here.
#include <optional>
#include <string>

namespace memtune::isolation {

// The CUDA_VISIBLE_DEVICES value that shows a worker only the GPU this
// process calls `ordinal`, given this process's own CUDA_VISIBLE_DEVICES
// (`visible`, nullptr when unset):
//   - unset: the ordinal itself;
//   - a list of distinct GPU ordinals or GPU-/MIG- UUIDs, as the driver reads
//     it: its entry `ordinal`;
//   - anything else (empty, a malformed or repeated entry, too few entries):
//     nullopt, and the worker sees what this process sees.
// A list entry naming a GPU the host lacks cannot be told from here; a worker
// shown it finds no GPU, and WorkerPool starts it again seeing every GPU.
[[nodiscard]] std::optional<std::string> single_gpu_visibility(int ordinal, const char* visible);

} // namespace memtune::isolation
