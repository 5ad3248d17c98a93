#include <memtune/compile/compiler.hpp>
#include <memtune/compile/cuda_toolkit.hpp>
#include <memtune/compile/nvcc_compiler.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>

#include <memtune/io/digest.hpp>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace memtune {
namespace {

namespace fs = std::filesystem;

// What decides the back end: the file the source was read from (whose
// candidates differ only in substituted #define lines), else the source and
// its in-memory headers. The same for a request before and after
// with_discovered_includes(), so every caller agrees.
std::string source_key(const CompileRequest& r) {
  if (!r.source_path.empty()) {
    std::error_code ec;
    return "file:" + fs::weakly_canonical(fs::absolute(r.source_path, ec), ec).string();
  }
  std::string text = r.source;
  for (const auto& h : r.headers) text += "\n//header " + h.name + "\n" + h.text;
  return digest128(text);
}

std::mutex choices_mutex;
std::unordered_map<std::string, CompilerKind> choices; // by source_key

} // namespace

const char* to_string(CompilerKind kind) {
  switch (kind) {
  case CompilerKind::automatic: return "auto";
  case CompilerKind::nvrtc: return "nvrtc";
  case CompilerKind::nvcc: return "nvcc";
  }
  return "auto";
}

CompilerKind compiler_kind_from_string(const std::string& text) {
  if (text == "auto") return CompilerKind::automatic;
  if (text == "nvrtc") return CompilerKind::nvrtc;
  if (text == "nvcc") return CompilerKind::nvcc;
  throw std::invalid_argument("\"" + text + "\" is not a compiler: use nvrtc, nvcc or auto");
}

CompileRequest with_discovered_includes(const CompileRequest& request) {
  CompileRequest r = request;
  std::vector<std::string> dirs;
  const auto add = [&](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
    if (ec) c = p.lexically_normal();
    if (std::find(dirs.begin(), dirs.end(), c.string()) == dirs.end()) dirs.push_back(c.string());
  };
  for (const auto& p : request.include_paths) add(p);
  if (!request.source_path.empty()) {
    std::error_code ec;
    const fs::path file = fs::weakly_canonical(fs::absolute(request.source_path, ec), ec);
    r.source_path = file.string();
    add(file.parent_path());
  }
  for (const auto& p : cuda_toolkit().include_dirs) add(p);
  r.include_paths = std::move(dirs);
  return r;
}

bool nvrtc_log_needs_nvcc(const std::string& log) {
  return log.find("host functions are not allowed in JIT mode") != std::string::npos ||
         log.find("open source file") != std::string::npos; // "could not open" / "cannot open source file"
}

std::string compiler_warnings(const std::string& log) {
  std::string out;
  std::size_t pos = 0;
  bool in_warning = false;
  while (pos < log.size()) {
    std::size_t end = log.find('\n', pos);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(pos, end - pos);
    pos = end + 1;
    if (line.find("ptxas info") != std::string::npos || line.find("Remark: The warnings can be suppressed") != std::string::npos) {
      in_warning = false;
      continue;
    }
    if (line.find("warning") != std::string::npos && line.find(": ") != std::string::npos) in_warning = true;
    else if (line.empty() || (!line.empty() && line[0] != ' ')) in_warning = false;
    if (in_warning) out += line + "\n";
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

CompilerKind remembered_compiler(const CompileRequest& request) {
  if (request.compiler != CompilerKind::automatic) return request.compiler;
  std::lock_guard lock(choices_mutex);
  const auto it = choices.find(source_key(request));
  return it == choices.end() ? CompilerKind::automatic : it->second;
}

void remember_compiler(const CompileRequest& request, CompilerKind kind) {
  std::lock_guard lock(choices_mutex);
  choices[source_key(request)] = kind;
}

CompileResult compile(const CompileRequest& given) {
  const CompileRequest request = with_discovered_includes(given);
  CompileResult result;
  switch (remembered_compiler(request)) {
  case CompilerKind::nvcc: result = nvcc_compile(request); break;
  case CompilerKind::nvrtc: result = nvrtc_compile(request); break;
  case CompilerKind::automatic:
    result = nvrtc_compile(request);
    if (!result.ok && nvrtc_log_needs_nvcc(result.log)) {
      if (cuda_toolkit().nvcc.empty()) {
        result.log += "\nmemtune: NVRTC cannot compile this file (host code, or a header it cannot open) and no nvcc was "
                      "found to compile it (looked in " + cuda_toolkit().searched + "); set CUDA_PATH to a CUDA toolkit";
      } else {
        remember_compiler(request, CompilerKind::nvcc);
        result = nvcc_compile(request);
      }
    } else if (result.ok) {
      remember_compiler(request, CompilerKind::nvrtc);
    }
    break;
  }
  result.warnings = compiler_warnings(result.log);
  return result;
}

} // namespace memtune
