#pragma once
// What to compile and what came out. A compile error is data (ok == false with
// the compiler log), never an exception: a candidate that does not compile is
// a result like any other.
#include <memtune/compile/kernel_resources.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

// A header given to NVRTC in memory: what `#include "name"` finds.
struct CompileHeader {
  std::string name; // as the source includes it: "tile.cuh"
  std::string text;
  friend bool operator==(const CompileHeader&, const CompileHeader&) = default;
};

// The compiler back end: NVRTC, the toolkit's nvcc, or the first that can
// (NVRTC, then nvcc when NVRTC refuses host code or cannot open a header).
enum class CompilerKind { automatic, nvrtc, nvcc };
const char* to_string(CompilerKind kind);                     // "auto", "nvrtc", "nvcc"
CompilerKind compiler_kind_from_string(const std::string& text); // throws std::invalid_argument naming the choices

struct CompileRequest {
  std::string source;               // complete CUDA C++ source
  std::string source_name;          // shown in compiler messages, e.g. "filter.cu"
  std::string name_expression;      // instantiation to compile: "filter_kernel<256, 2, 4, 4, 1>"
  std::vector<std::string> options; // NVRTC options besides the architecture, e.g. "-DMEMTUNE_TAPS=21"
  int compute_capability = 0;       // 90 for sm_90
  std::vector<CompileHeader> headers;     // in-memory headers (part of the cache key)
  // -I folders the compiler reads headers from, besides those memtune finds
  // itself (the source file's folder, the toolkit's include and include/cccl:
  // compiler.hpp). The cache key holds the content of the headers the source
  // includes from them (include_scan.hpp), so an edited header misses it.
  std::vector<std::string> include_paths;
  // The file the source was read from (any path; empty for an embedded
  // source): its folder is searched for `#include "x"` first.
  std::string source_path;
  CompilerKind compiler = CompilerKind::automatic;
  // An NVRTC loaded at run time to compile with (nvrtc_library.hpp: NVRTC
  // 11.8 for Kepler), by path; empty: the NVRTC memtune links.
  std::string nvrtc_library;
};

struct CompileResult {
  bool ok = false;
  std::string log;            // compiler and ptxas output (errors when !ok)
  std::vector<char> cubin;    // when ok
  std::string lowered_name;   // mangled kernel name, for cuModuleGetFunction
  KernelResources resources;  // when ok
  double seconds = 0.0;       // [seconds] compile wall time (0 on a cache hit)
  bool from_cache = false;
  std::string compiler;       // "NVRTC 13.0", "NVRTC 11.8 (/path/libnvrtc.so.11.2)" or "nvcc 13.0 (/path/nvcc)": what produced the registers
  std::string warnings;       // the compiler's warnings (from the log), kept for the candidate's record
};

} // namespace memtune
