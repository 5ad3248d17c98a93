#include <memtune/compile/cuda_toolkit.hpp>
#include <memtune/compile/kernel_resources.hpp>
#include <memtune/compile/nvcc_compiler.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace memtune {
namespace {

namespace fs = std::filesystem;

const fs::path& nvcc_path() {
  const CudaToolkit& t = cuda_toolkit();
  if (t.nvcc.empty())
    throw std::runtime_error("no nvcc found (looked in " + t.searched +
                             "): install the CUDA toolkit, set CUDA_PATH, or compile with --compiler nvrtc");
  return t.nvcc;
}

// A private folder, removed with everything in it; the destructor never throws.
struct TempFolder {
  fs::path path;
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "memtune-nvcc-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder for nvcc: " + std::string(std::strerror(errno)));
    path = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) throw std::runtime_error("cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs argv[0] with stdout and stderr into `log`; returns the exit status
// (128 + signal when killed). posix_spawn: safe from the compile pool's threads.
int run(const std::vector<std::string>& args, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waiting for " + args[0] + ": " + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string file_name_of(const std::string& source_name) {
  const std::string name = fs::path(source_name).filename().string();
  return name.empty() ? std::string("kernel.cu") : name;
}

// The demangled name without return type and parameters, blanks removed:
// "void ns::tile<32, float>(float*)" -> "ns::tile<32,float>".
std::string plain_name(const std::string& demangled) {
  std::string s = demangled;
  // The parameter list: the last '(' at template depth 0.
  int depth = 0;
  std::size_t params = std::string::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>') --depth;
    else if (s[i] == '(' && depth == 0) params = i;
  }
  if (params != std::string::npos) s.resize(params);
  // A template's return type comes first: "void ns::tile<...>".
  depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>') --depth;
    else if (s[i] == ' ' && depth == 0) start = i + 1;
  }
  s = s.substr(start);
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

std::string base_name(const std::string& plain) { return plain.substr(0, plain.find('<')); }

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> d(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && d ? std::string(d.get()) : symbol; // extern "C": the name itself
}

constexpr std::string_view kMarker = "memtune_kernel_marker";

// The kernel a marker names, as the demangler spells it: "void
// memtune_kernel_marker<&(void k<unsigned char>(unsigned char*))>()" -> "void
// k<unsigned char>(unsigned char*)"; nullopt for any other symbol.
std::optional<std::string> marked_kernel(const std::string& demangled) {
  const std::string head = "void " + std::string(kMarker) + "<";
  if (demangled.rfind(head, 0) != 0 || !demangled.ends_with(">()")) return std::nullopt;
  std::string arg = demangled.substr(head.size(), demangled.size() - head.size() - 3);
  if (arg.starts_with("&")) arg.erase(0, 1);
  if (arg.size() >= 2 && arg.front() == '(' && arg.back() == ')') arg = arg.substr(1, arg.size() - 2);
  return arg;
}

} // namespace

std::string find_kernel_symbol(const std::vector<std::string>& symbols, const std::string& name_expression) {
  std::string wanted = name_expression;
  wanted.erase(std::remove_if(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isspace(c); }), wanted.end());
  if (wanted.rfind("::", 0) == 0) wanted.erase(0, 2);
  struct Kernel {
    std::string symbol, demangled;
  };
  std::optional<std::string> marked;
  std::vector<Kernel> kernels; // every entry point but the marker, demangled once
  for (const auto& s : symbols) {
    std::string d = demangle(s);
    if (auto k = marked_kernel(d)) marked = std::move(k);
    else kernels.push_back({s, std::move(d)});
  }
  if (marked) { // as the compiler resolved the expression: the whole signature, else the name (extern "C")
    std::vector<std::string> same_signature, same_name;
    for (const auto& k : kernels) {
      if (k.demangled == *marked) same_signature.push_back(k.symbol);
      if (plain_name(k.demangled) == plain_name(*marked)) same_name.push_back(k.symbol);
    }
    if (same_signature.size() == 1) return same_signature.front();
    if (same_name.size() == 1) return same_name.front();
  }
  std::vector<std::string> same_base, exact;
  std::string listed;
  for (const auto& k : kernels) {
    const std::string plain = plain_name(k.demangled);
    listed += (listed.empty() ? "" : ", ") + plain;
    if (plain == wanted) exact.push_back(k.symbol);
    if (base_name(plain) == base_name(wanted)) same_base.push_back(k.symbol);
  }
  if (exact.size() == 1) return exact.front();
  if (same_base.size() == 1) return same_base.front();
  throw std::invalid_argument("cannot tell which kernel of the CUBIN is " + name_expression + " (" +
                              (same_base.empty() ? "none is" : std::to_string(same_base.size()) + " are") +
                              " named like it; kernels: " + (listed.empty() ? "none" : listed) + ")");
}

std::string nvcc_identity() {
  static const std::string identity = [] {
    const fs::path& nvcc = nvcc_path();
    TempFolder folder;
    const fs::path log = folder.path / "version.txt";
    const int status = run({nvcc.string(), "--version"}, log);
    const std::string text = read_file(log);
    std::smatch m;
    if (status != 0 || !std::regex_search(text, m, std::regex(R"(release (\d+\.\d+))")))
      throw std::runtime_error(nvcc.string() + " --version did not report a release: " + text);
    return "nvcc " + m[1].str() + " (" + nvcc.string() + ")";
  }();
  return identity;
}

CompileResult nvcc_compile(const CompileRequest& request) {
  const fs::path& nvcc = nvcc_path();
  const std::string compiler = nvcc_identity();
  const auto start = std::chrono::steady_clock::now();
  TempFolder folder;
  // The source (as memtune holds it: defines substituted) and the in-memory
  // headers side by side, so `#include "tile.cuh"` finds them; the file's own
  // folder is an -I folder, for the headers beside it on disk.
  const std::string source_file = file_name_of(request.source_name);
  write_file(folder.path / source_file, request.source);
  for (const auto& h : request.headers) {
    const fs::path p = folder.path / h.name;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    write_file(p, h.text);
  }
  const std::string unit = "memtune_instantiate.cu";
  write_file(folder.path / unit, "#include \"" + source_file + "\"\n" +
                                     "// Taking the address instantiates the kernel and keeps it in the CUBIN.\n"
                                     "__attribute__((unused)) static const void* const memtune_kernel_address = (const void*)&" +
                                     request.name_expression + ";\n" +
                                     "// The marker that names it as resolved (find_kernel_symbol).\n"
                                     "#if __cplusplus >= 201703L\n"
                                     "template <auto F> __global__ void " + std::string(kMarker) + "() {}\n"
                                     "template __global__ void " + std::string(kMarker) + "<&" + request.name_expression + ">();\n"
                                     "#endif\n");
  std::vector<std::string> args{nvcc.string(), "--cubin", "-arch=sm_" + std::to_string(request.compute_capability),
                                "-Xptxas", "-v", "-o", (folder.path / "kernel.cubin").string()};
  for (const auto& o : request.options) args.push_back(o);
  for (const auto& dir : request.include_paths) args.push_back("-I" + dir);
  args.push_back((folder.path / unit).string());
  const fs::path log = folder.path / "nvcc.log";
  const int status = run(args, log);

  CompileResult result;
  result.compiler = compiler;
  result.log = read_file(log);
  while (!result.log.empty() && result.log.back() == '\n') result.log.pop_back();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (status != 0) {
    result.seconds = elapsed();
    return result;
  }
  const std::string bytes = read_file(folder.path / "kernel.cubin");
  result.cubin.assign(bytes.begin(), bytes.end());
  try {
    result.lowered_name = find_kernel_symbol(cubin_kernel_symbols(result.cubin), request.name_expression);
  } catch (const std::invalid_argument& e) {
    result.log += (result.log.empty() ? "" : "\n") + std::string("memtune: ") + e.what();
    result.cubin.clear();
    result.seconds = elapsed();
    return result;
  }
  result.resources = compiled_kernel_resources(result.log, result.lowered_name, result.cubin);
  result.ok = true;
  result.seconds = elapsed();
  return result;
}

} // namespace memtune
