#pragma once
// A kernel's memory accesses for the analytical model, as data: what lets
// `memtune tune --spec K --target k20` rank a user's kernel for a GPU that is
// not in the machine, and gives `--strategy bayes` its model prior.
//
// The built-in templates describe their accesses in C++ (AccessPattern, as
// functions of warp, lane and iteration). A description file writes the same
// thing as expressions in its "model" section (docs/kernel-description.md,
// "The model section"):
//
//   "model": {
//     "global": [{"name": "load tile rows", "buffer": "in", "access": "load", "iterations": "TILE / ROWS",
//                 "index": "(blockIdx.y * TILE + threadIdx.y + iteration * ROWS) * cols + blockIdx.x * TILE + threadIdx.x"}],
//     "shared": [{"name": "load tile columns", "access": "load", "iterations": "TILE / ROWS",
//                 "index": "threadIdx.x * (TILE + PAD) + threadIdx.y + iteration * ROWS"}],
//     "barrier": true                                   // or an expression over the parameters
//   }
//
// Each access is one instruction of the kernel's source, executed
// `iterations` times by every thread of a block (a loop); `index` and `if`
// read the description's names plus the thread's own: threadIdx.{x,y,z},
// blockIdx.{x,y,z} (the block in the middle of the grid), blockDim.{x,y,z},
// gridDim.{x,y,z} and `iteration` (0 .. iterations - 1). The model replays
// them for every thread of that block (the section's "locals" name the
// kernel's per-thread values, so an index reads like the source) (long loops sampled) and derives the
// rest: the sectors and L1 lines each warp touches, the bank conflicts, the
// traffic per buffer, the bytes in flight.
#include <memtune/model/access_pattern.hpp>
#include <memtune/search/expr.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune {

// One global-memory instruction: `buffer[index]`, `vector` elements wide.
struct GlobalAccessSpec {
  std::string name;                   // for the rationale: "load tile rows"
  std::string buffer;                 // a buffer argument's name; index counts its elements
  model::AccessKind kind = model::AccessKind::load;
  search::Expr index = 0;             // [elements of the buffer] the first element a thread accesses
  search::Expr vector = 1;            // elements per access (float4 on a float buffer: 4)
  search::Expr iterations = 1;        // times each thread executes it
  std::optional<search::Expr> active; // "if": the thread executes it only where this holds (its guard)
  GlobalPath path = GlobalPath::standard; // loads: "cache": "default", "read_only" (__ldg), "l2_only" (__ldcg)
};

// One shared-memory instruction: byte address index x element_bytes.
struct SharedAccessSpec {
  std::string name;
  model::AccessKind kind = model::AccessKind::load;
  search::Expr index = 0;             // [elements] within the block's shared memory
  search::Expr element_bytes = 4;     // bytes per element (8 for a double array)
  search::Expr vector = 1;            // elements per access
  search::Expr iterations = 1;
  std::optional<search::Expr> active;
};

struct ModelSpec {
  // The kernel's per-thread local values, in order ("x": "blockIdx.x * BX +
  // threadIdx.x"): each may read the thread's names and the locals before it;
  // the accesses' index and "if" read them by name.
  std::vector<std::pair<std::string, search::Expr>> locals;
  std::vector<GlobalAccessSpec> global;
  std::vector<SharedAccessSpec> shared;
  // Independent global loads a thread keeps outstanding at once. Default:
  // one per load instruction listed (the loads of one iteration of a loop
  // body do not wait for each other; a loop's next trip waits).
  std::optional<search::Expr> loads_in_flight;
  // Instructions a thread issues besides its memory accesses (arithmetic,
  // FP32 mostly), over its whole life. Default 0: a memory-bound kernel.
  std::optional<search::Expr> compute_per_thread;
  // Non-zero when a __syncthreads separates the block's loads from its
  // compute (a tile staged in shared memory): the block, not the warp, is
  // then the unit whose memory and compute phases run one after the other.
  // An expression, for a description whose variants differ ("LOADS == \"smem\"").
  search::Expr barrier = 0;
  search::Expr bank_bytes = 4;        // the shared-memory bank mode (Kepler: 4 or 8)
};

// The names an access's expressions read besides the description's own.
[[nodiscard]] const std::vector<std::string>& model_thread_names();

} // namespace memtune
