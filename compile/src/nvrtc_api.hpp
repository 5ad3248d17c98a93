#pragma once
// The NVRTC entry points memtune calls, as a table: filled from the NVRTC it
// links (nvrtc_compiler.cpp) or from one loaded at run time
// (nvrtc_library.cpp), so that both compile through the same code.
#include <memtune/compile/compile_request.hpp>

#include <nvrtc.h>

#include <string>
#include <vector>

namespace memtune::detail {

struct NvrtcApi {
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*GetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*GetSupportedArchs)(int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*AddNameExpression)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetLoweredName)(nvrtcProgram, const char*, const char**) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
};

// "13.0"; throws on an NVRTC error.
std::string api_version(const NvrtcApi& api);
// Ascending.
std::vector<int> api_supported_archs(const NvrtcApi& api);
// nvrtc_compile()'s contract, through `api`; `compiler` names it in errors
// ("NVRTC 11.8 (/path)").
CompileResult api_compile(const NvrtcApi& api, const std::string& compiler, const std::vector<int>& archs,
                          const CompileRequest& request);

} // namespace memtune::detail
