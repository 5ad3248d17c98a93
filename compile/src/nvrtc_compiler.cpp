#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/compile/nvrtc_error.hpp>
#include <memtune/compile/nvrtc_library.hpp>
#include <memtune/cuda/error.hpp>

#include "nvrtc_api.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace memtune {
namespace detail {
namespace {

// An NVRTC error of `api` (the linked one or a loaded one): result codes
// are the same enum in every NVRTC version.
[[noreturn]] void fail(const NvrtcApi&, nvrtcResult code, const std::string& call) {
  throw cuda::NvrtcError(code, call, __FILE__, __LINE__);
}

void check(const NvrtcApi& api, nvrtcResult code, const char* call) {
  if (code != NVRTC_SUCCESS) fail(api, code, call);
}

// Owns an nvrtcProgram; the destructor never throws.
struct Program {
  const NvrtcApi& api;
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle) api.DestroyProgram(&handle);
  }
};

std::string program_log(const NvrtcApi& api, nvrtcProgram program) {
  std::size_t size = 0;
  check(api, api.GetProgramLogSize(program, &size), "nvrtcGetProgramLogSize");
  std::string log(size, '\0');
  if (size) check(api, api.GetProgramLog(program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// With a driver installed, NVRTC consults the CUDA compute cache and, on a
// hit, prints no ptxas report: registers and spills would read as zero (seen
// on an H100 when the same candidate was compiled by a second process).
// memtune keeps its own cache of CUBINs and reports, so the compute cache
// only hides information; turn it off for this process unless the user chose.
void disable_compute_cache_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::setenv("CUDA_CACHE_DISABLE", "1", /*overwrite=*/0); });
}

} // namespace

std::string api_version(const NvrtcApi& api) {
  int major = 0, minor = 0;
  check(api, api.Version(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> api_supported_archs(const NvrtcApi& api) {
  int count = 0;
  check(api, api.GetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(std::max(0, count)));
  if (count) check(api, api.GetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  std::sort(archs.begin(), archs.end());
  return archs;
}

CompileResult api_compile(const NvrtcApi& api, const std::string& compiler, const std::vector<int>& archs,
                          const CompileRequest& request) {
  if (!std::binary_search(archs.begin(), archs.end(), request.compute_capability))
    throw std::invalid_argument(compiler + " cannot compile for sm_" + std::to_string(request.compute_capability) +
                                (archs.empty() ? std::string()
                                               : " (it supports sm_" + std::to_string(archs.front()) + " to sm_" +
                                                     std::to_string(archs.back()) + ")"));

  disable_compute_cache_once();
  const auto start = std::chrono::steady_clock::now();
  Program program{api};
  std::vector<const char*> header_texts, header_names;
  for (const auto& h : request.headers) {
    header_texts.push_back(h.text.c_str());
    header_names.push_back(h.name.c_str());
  }
  check(api,
        api.CreateProgram(&program.handle, request.source.c_str(), request.source_name.c_str(),
                          static_cast<int>(request.headers.size()), header_texts.data(), header_names.data()),
        "nvrtcCreateProgram");
  check(api, api.AddNameExpression(program.handle, request.name_expression.c_str()), "nvrtcAddNameExpression");

  std::vector<std::string> options = request.options;
  for (const auto& folder : request.include_paths) options.push_back("--include-path=" + folder);
  options.push_back("--gpu-architecture=sm_" + std::to_string(request.compute_capability));
  options.emplace_back("--ptxas-options=-v"); // registers, shared memory and spills in the log
  std::vector<const char*> argv;
  argv.reserve(options.size());
  for (const auto& o : options) argv.push_back(o.c_str());

  CompileResult result;
  result.compiler = compiler;
  const nvrtcResult status = api.CompileProgram(program.handle, static_cast<int>(argv.size()), argv.data());
  result.log = program_log(api, program.handle);
  if (status == NVRTC_ERROR_COMPILATION) {
    result.ok = false;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  if (status != NVRTC_SUCCESS)
    fail(api, status, "nvrtcCompileProgram(" + request.name_expression + ") with " + compiler +
                          (result.log.empty() ? "" : ": " + result.log));

  const char* lowered = nullptr;
  check(api, api.GetLoweredName(program.handle, request.name_expression.c_str(), &lowered), "nvrtcGetLoweredName");
  result.lowered_name = lowered;
  std::size_t cubin_size = 0;
  check(api, api.GetCUBINSize(program.handle, &cubin_size), "nvrtcGetCUBINSize");
  result.cubin.resize(cubin_size);
  check(api, api.GetCUBIN(program.handle, result.cubin.data()), "nvrtcGetCUBIN");
  result.resources = compiled_kernel_resources(result.log, result.lowered_name, result.cubin);
  result.compiler = compiler;
  result.ok = true;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace detail

namespace {

const detail::NvrtcApi& linked_api() {
  static const detail::NvrtcApi api{&nvrtcGetErrorString,  &nvrtcVersion,          &nvrtcGetNumSupportedArchs,
                                    &nvrtcGetSupportedArchs, &nvrtcCreateProgram,  &nvrtcDestroyProgram,
                                    &nvrtcAddNameExpression, &nvrtcCompileProgram, &nvrtcGetProgramLogSize,
                                    &nvrtcGetProgramLog,     &nvrtcGetLoweredName, &nvrtcGetCUBINSize,
                                    &nvrtcGetCUBIN};
  return api;
}

} // namespace

std::string nvrtc_version() { return detail::api_version(linked_api()); }

std::vector<int> nvrtc_supported_archs() { return detail::api_supported_archs(linked_api()); }

int nearest_supported_arch(int compute_capability) {
  const std::vector<int> archs = nvrtc_supported_archs();
  if (archs.empty()) throw std::runtime_error("NVRTC reports no supported architectures");
  auto above = std::lower_bound(archs.begin(), archs.end(), compute_capability);
  if (above != archs.end()) return *above;
  return archs.back();
}

std::string compiler_identity(const CompileRequest& request) {
  if (!request.nvrtc_library.empty()) return NvrtcLibrary::open(request.nvrtc_library)->description();
  return "NVRTC " + nvrtc_version();
}

CompileResult nvrtc_compile(const CompileRequest& request) {
  if (!request.nvrtc_library.empty()) return NvrtcLibrary::open(request.nvrtc_library)->compile(request);
  return detail::api_compile(linked_api(), "NVRTC " + nvrtc_version(), nvrtc_supported_archs(), request);
}

} // namespace memtune
