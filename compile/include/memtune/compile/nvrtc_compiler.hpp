#pragma once
// NVRTC: compiles one template instantiation to a CUBIN, named through
// nvrtcAddNameExpression / nvrtcGetLoweredName (never by hand-mangling).
// Needs no GPU and no driver.
#include <memtune/compile/compile_request.hpp>

#include <string>
#include <vector>

namespace memtune {

// Compiles, with the linked NVRTC or the library request.nvrtc_library
// names. Returns ok == false with the log for NVRTC_ERROR_COMPILATION;
// throws cuda::NvrtcError for anything else (bad option, out of memory), and
// std::invalid_argument for an architecture this NVRTC cannot target.
CompileResult nvrtc_compile(const CompileRequest& request);

// "13.0"
std::string nvrtc_version();
// The compiler a request compiles with: "NVRTC 13.0" (the linked one) or a
// loaded library's "NVRTC 11.8 (/path/libnvrtc.so.11.2)". Compile caches key
// on it.
std::string compiler_identity(const CompileRequest& request);
// Compute capabilities this NVRTC can target, ascending: {75, 80, ..., 121}.
std::vector<int> nvrtc_supported_archs();
// The closest architecture NVRTC supports: the one requested if supported,
// else the oldest supported one above it (sm_35 -> sm_75 with NVRTC 13), else
// the newest below it.
int nearest_supported_arch(int compute_capability);

} // namespace memtune
