#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/cuda/error.hpp>

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <regex>
#include <stdexcept>

namespace memtune {
namespace {

// Owns an nvrtcProgram; the destructor never throws.
struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle) nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  MEMTUNE_NVRTC(nvrtcGetProgramLogSize(program, &size));
  std::string log(size, '\0');
  if (size) MEMTUNE_NVRTC(nvrtcGetProgramLog(program, log.data()));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::size_t to_size(const std::string& digits) { return static_cast<std::size_t>(std::stoull(digits)); }

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

std::string nvrtc_version() {
  int major = 0, minor = 0;
  MEMTUNE_NVRTC(nvrtcVersion(&major, &minor));
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_archs() {
  int count = 0;
  MEMTUNE_NVRTC(nvrtcGetNumSupportedArchs(&count));
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (count) MEMTUNE_NVRTC(nvrtcGetSupportedArchs(archs.data()));
  std::sort(archs.begin(), archs.end());
  return archs;
}

int nearest_supported_arch(int compute_capability) {
  const std::vector<int> archs = nvrtc_supported_archs();
  if (archs.empty()) throw std::runtime_error("NVRTC reports no supported architectures");
  auto above = std::lower_bound(archs.begin(), archs.end(), compute_capability);
  if (above != archs.end()) return *above;
  return archs.back();
}

KernelResources parse_ptxas_report(const std::string& log, const std::string& lowered_name) {
  KernelResources r;
  // The report for a kernel starts at "Compiling entry function '<name>'" and
  // runs until the next entry function.
  std::size_t begin = log.find("Compiling entry function '" + lowered_name + "'");
  if (begin == std::string::npos) begin = 0;
  std::size_t end = log.find("Compiling entry function", begin + 1);
  const std::string section = log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);

  std::smatch m;
  if (std::regex_search(section, m, std::regex(R"(Used (\d+) registers)"))) r.registers = std::stoi(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes smem)"))) r.static_smem_bytes = to_size(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes stack frame)"))) r.stack_frame_bytes = to_size(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes spill stores)"))) r.spill_store_bytes = to_size(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes spill loads)"))) r.spill_load_bytes = to_size(m[1]);
  return r;
}

CompileResult nvrtc_compile(const CompileRequest& request) {
  const std::vector<int> archs = nvrtc_supported_archs();
  if (!std::binary_search(archs.begin(), archs.end(), request.compute_capability))
    throw std::invalid_argument("NVRTC " + nvrtc_version() + " cannot compile for sm_" +
                                std::to_string(request.compute_capability) + " (nearest supported: sm_" +
                                std::to_string(nearest_supported_arch(request.compute_capability)) + ")");

  disable_compute_cache_once();
  const auto start = std::chrono::steady_clock::now();
  Program program;
  std::vector<const char*> header_texts, header_names;
  for (const auto& h : request.headers) {
    header_texts.push_back(h.text.c_str());
    header_names.push_back(h.name.c_str());
  }
  MEMTUNE_NVRTC(nvrtcCreateProgram(&program.handle, request.source.c_str(), request.source_name.c_str(),
                                   static_cast<int>(request.headers.size()), header_texts.data(), header_names.data()));
  MEMTUNE_NVRTC(nvrtcAddNameExpression(program.handle, request.name_expression.c_str()));

  std::vector<std::string> options = request.options;
  for (const auto& folder : request.include_paths) options.push_back("--include-path=" + folder);
  options.push_back("--gpu-architecture=sm_" + std::to_string(request.compute_capability));
  options.emplace_back("--ptxas-options=-v"); // registers, shared memory and spills in the log
  std::vector<const char*> argv;
  argv.reserve(options.size());
  for (const auto& o : options) argv.push_back(o.c_str());

  CompileResult result;
  const nvrtcResult status = nvrtcCompileProgram(program.handle, static_cast<int>(argv.size()), argv.data());
  result.log = program_log(program.handle);
  if (status == NVRTC_ERROR_COMPILATION) {
    result.ok = false;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  if (status != NVRTC_SUCCESS) {
    throw cuda::NvrtcError(status, "nvrtcCompileProgram(" + request.name_expression + ")" +
                                       (result.log.empty() ? "" : ": " + result.log),
                           __FILE__, __LINE__);
  }

  const char* lowered = nullptr;
  MEMTUNE_NVRTC(nvrtcGetLoweredName(program.handle, request.name_expression.c_str(), &lowered));
  result.lowered_name = lowered;
  std::size_t cubin_size = 0;
  MEMTUNE_NVRTC(nvrtcGetCUBINSize(program.handle, &cubin_size));
  result.cubin.resize(cubin_size);
  MEMTUNE_NVRTC(nvrtcGetCUBIN(program.handle, result.cubin.data()));
  result.resources = parse_ptxas_report(result.log, result.lowered_name);
  result.ok = true;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace memtune
