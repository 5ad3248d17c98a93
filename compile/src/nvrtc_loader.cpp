// NVRTC loaded when first used, not when the process starts. Linking
// libnvrtc costs every process about 7 ms before main (mapping and relocating
// 100 MB, and its static initialisers: measured by bench/startup), which an
// application that only loads cached kernels never needs. These definitions
// of the nvrtc.h functions memtune calls forward to the library, opened on
// the first call: the CUDA toolkit's at build time, else the loader's
// libnvrtc.so.<major>. Compiled with hidden visibility, so they never
// interpose on another NVRTC in the process.
//
// nvrtcVersion is the exception: compile-cache keys need it on every lookup,
// so it is remembered per library file (path, size, date) in the compile
// cache folder, and a cache hit opens no NVRTC at all.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/io/atomic_file.hpp>

#include <memtune/io/digest.hpp>

#include <dlfcn.h>
#include <nvrtc.h>
#include <sys/stat.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune {
namespace {

// Where NVRTC is looked for, in order.
std::vector<std::string> candidates() {
  return {MEMTUNE_NVRTC_TOOLKIT_LIBRARY, MEMTUNE_NVRTC_SONAME};
}

struct Library {
  void* handle = nullptr;
  std::size_t candidate = 0; // which of candidates() it is
  std::string error;         // why none could be opened
};

std::atomic<bool> opened{false}; // library() has run

const Library& library() {
  static const Library loaded = [] {
    Library l;
    const std::vector<std::string> names = candidates();
    for (l.candidate = 0; l.candidate < names.size(); ++l.candidate) {
      l.handle = ::dlopen(names[l.candidate].c_str(), RTLD_NOW | RTLD_LOCAL);
      if (l.handle) break;
      const char* why = ::dlerror();
      l.error += (l.error.empty() ? "" : "; ") + (why ? std::string(why) : names[l.candidate] + ": not found");
    }
    opened = true;
    return l;
  }();
  return loaded;
}

template <class F> F entry(const char* name) {
  const Library& l = library();
  if (!l.handle)
    throw std::runtime_error("memtune compiles kernels with NVRTC, which could not be loaded (" + l.error +
                             "); put the CUDA toolkit's lib folder on LD_LIBRARY_PATH");
  void* symbol = ::dlsym(l.handle, name);
  if (!symbol) throw std::runtime_error(std::string("the NVRTC library has no ") + name);
  return reinterpret_cast<F>(symbol);
}

// The library file the first candidate names, identified by its path, size
// and modification time; empty when it does not exist (then only opening
// the library tells its version).
std::string toolkit_library_identity() {
  struct stat s {};
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(MEMTUNE_NVRTC_TOOLKIT_LIBRARY, ec);
  if (ec || ::stat(real.c_str(), &s) != 0) return {};
  return real.string() + " " + std::to_string(s.st_size) + " " + std::to_string(s.st_mtim.tv_sec) + "." +
         std::to_string(s.st_mtim.tv_nsec);
}

std::filesystem::path version_memo(const std::string& identity) {
  return CompileCache::default_folder() / ("nvrtc-" + digest128(identity) + ".version");
}

} // namespace
} // namespace memtune

using memtune::entry;

extern "C" {

const char* nvrtcGetErrorString(nvrtcResult result) {
  if (!memtune::library().handle) return "NVRTC is not loaded";
  static const auto f = entry<decltype(&nvrtcGetErrorString)>("nvrtcGetErrorString");
  return f(result);
}

nvrtcResult nvrtcVersion(int* major, int* minor) {
  // The toolkit's library, when it is the one to open: its remembered version.
  const std::string identity = memtune::toolkit_library_identity();
  const auto memo = identity.empty() ? std::filesystem::path() : memtune::version_memo(identity);
  if (!identity.empty() && !memtune::opened) {
    std::ifstream in(memo);
    std::string text;
    if (in >> text && std::sscanf(text.c_str(), "%d.%d", major, minor) == 2) return NVRTC_SUCCESS;
  }
  static const auto f = entry<decltype(&nvrtcVersion)>("nvrtcVersion");
  const nvrtcResult r = f(major, minor);
  if (r == NVRTC_SUCCESS && !identity.empty() && memtune::library().candidate == 0) {
    // Written whole, then renamed: a reader never sees half a version.
    try {
      memtune::io::write_file_atomically(memo, std::to_string(*major) + "." + std::to_string(*minor) + "\n",
                                         memtune::io::OutputKind::compile_cache, memtune::io::Durability::no_fsync);
    } catch (const std::exception&) { // a cache only: the next process asks NVRTC again
    }
  }
  return r;
}

#define MEMTUNE_NVRTC_FORWARD(name, params, args)                                                                   \
  nvrtcResult name params {                                                                                        \
    static const auto f = entry<decltype(&name)>(#name);                                                           \
    return f args;                                                                                                 \
  }

MEMTUNE_NVRTC_FORWARD(nvrtcGetNumSupportedArchs, (int* count), (count))
MEMTUNE_NVRTC_FORWARD(nvrtcGetSupportedArchs, (int* archs), (archs))
MEMTUNE_NVRTC_FORWARD(nvrtcCreateProgram,
                      (nvrtcProgram * program, const char* source, const char* name, int headers,
                       const char* const* header_sources, const char* const* header_names),
                      (program, source, name, headers, header_sources, header_names))
MEMTUNE_NVRTC_FORWARD(nvrtcDestroyProgram, (nvrtcProgram * program), (program))
MEMTUNE_NVRTC_FORWARD(nvrtcCompileProgram, (nvrtcProgram program, int count, const char* const* options),
                      (program, count, options))
MEMTUNE_NVRTC_FORWARD(nvrtcGetProgramLogSize, (nvrtcProgram program, size_t* size), (program, size))
MEMTUNE_NVRTC_FORWARD(nvrtcGetProgramLog, (nvrtcProgram program, char* log), (program, log))
MEMTUNE_NVRTC_FORWARD(nvrtcAddNameExpression, (nvrtcProgram program, const char* name), (program, name))
MEMTUNE_NVRTC_FORWARD(nvrtcGetLoweredName, (nvrtcProgram program, const char* name, const char** lowered),
                      (program, name, lowered))
MEMTUNE_NVRTC_FORWARD(nvrtcGetCUBINSize, (nvrtcProgram program, size_t* size), (program, size))
MEMTUNE_NVRTC_FORWARD(nvrtcGetCUBIN, (nvrtcProgram program, char* cubin), (program, cubin))

#undef MEMTUNE_NVRTC_FORWARD

} // extern "C"
