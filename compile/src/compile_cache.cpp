#include <memtune/compile/compile_cache.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/compile/compiler.hpp>
#include <memtune/compile/cuda_toolkit.hpp>
#include <memtune/compile/include_scan.hpp>
#include <memtune/compile/kernel_resources.hpp>
#include <memtune/compile/nvcc_compiler.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>

#include <memtune/io/digest.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <vector>

namespace memtune {
namespace {

// The identity of the compiler a request resolves to: an automatic request
// keys as NVRTC until this process learnt that its source needs nvcc.
std::string resolved_identity(const CompileRequest& r, CompilerKind kind) {
  if (kind == CompilerKind::nvcc) return nvcc_identity();
  // The linked NVRTC by version; a loaded one by version and path.
  return r.nvrtc_library.empty() ? "NVRTC " + nvrtc_version() : compiler_identity(r);
}

std::string key_text_for(const CompileRequest& given, CompilerKind kind) {
  const CompileRequest r = with_discovered_includes(given);
  std::ostringstream key;
  key << "memtune-compile-cache-v2\n"
      << "compiler=" << resolved_identity(r, kind) << "\n"
      << "arch=sm_" << r.compute_capability << "\n"
      << "name=" << r.name_expression << "\n";
  for (const auto& o : r.options) key << "option=" << o << "\n";
  std::vector<std::filesystem::path> dirs(r.include_paths.begin(), r.include_paths.end());
  for (const auto& d : dirs) key << "include_dir=" << d.string() << "\n";
  // The headers the source includes, by content: their list is long for a
  // kernel that includes the toolkit's headers, so the key holds its digest.
  const std::filesystem::path source_dir =
      r.source_path.empty() ? std::filesystem::path() : std::filesystem::path(r.source_path).parent_path();
  std::string included;
  const auto files = scan_includes(r.source, source_dir, r.headers, dirs);
  for (const auto& f : files) included += f.path + " " + f.digest + "\n";
  key << "includes=" << files.size() << " " << digest128(included) << "\n";
  for (const auto& h : r.headers) key << "header=" << h.name << " " << h.text.size() << "\n" << h.text << "\n";
  key << "source=" << r.source;
  return key.str();
}

CompilerKind kind_to_key(const CompileRequest& r) {
  const CompilerKind kind = remembered_compiler(r);
  return kind == CompilerKind::automatic ? CompilerKind::nvrtc : kind;
}

// A cache entry is rebuilt when lost: atomic, without the fsync a store pays.
bool write_atomically(const std::filesystem::path& target, const std::string& bytes) {
  try {
    io::write_file_atomically(target, bytes, io::OutputKind::compile_cache, io::Durability::no_fsync);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

void warn_once(const std::string& message) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) std::fprintf(stderr, "memtune: warning: %s\n", message.c_str());
}

} // namespace

CompileCache::CompileCache(std::filesystem::path folder) : folder_(std::move(folder)) {}

std::filesystem::path CompileCache::default_folder() {
  if (const char* dir = std::getenv("MEMTUNE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "memtune";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "memtune";
  return std::filesystem::temp_directory_path() / "memtune-cache";
}

std::string CompileCache::key_text(const CompileRequest& r) { return key_text_for(r, kind_to_key(r)); }

std::string CompileCache::key_digest(const CompileRequest& r) {
  return digest128(key_text(r));
}

std::optional<CompileResult> CompileCache::load(const CompileRequest& request) const {
  if (request.compiler == CompilerKind::automatic && remembered_compiler(request) == CompilerKind::automatic) {
    // Not known yet which back end this source needs: an entry of either.
    CompileRequest as = request;
    for (const CompilerKind kind : {CompilerKind::nvrtc, CompilerKind::nvcc}) {
      if (kind == CompilerKind::nvcc && cuda_toolkit().nvcc.empty()) continue;
      as.compiler = kind;
      if (auto hit = load(as)) {
        remember_compiler(request, kind);
        return hit;
      }
    }
    return std::nullopt;
  }
  const CompilerKind kind = kind_to_key(request);
  const std::string text = key_text_for(request, kind);
  const std::string digest = digest128(text);
  std::ifstream meta_in(folder_ / (digest + ".json"));
  std::ifstream cubin_in(folder_ / (digest + ".cubin"), std::ios::binary);
  if (!meta_in || !cubin_in) return std::nullopt;
  try {
    const nlohmann::json meta = nlohmann::json::parse(meta_in);
    if (meta.at("key").get<std::string>() != text) return std::nullopt; // collision: recompile
    CompileResult r;
    r.ok = true;
    r.from_cache = true;
    r.lowered_name = meta.at("lowered_name").get<std::string>();
    r.log = meta.at("log").get<std::string>();
    r.compiler = resolved_identity(request, kind);
    r.warnings = compiler_warnings(r.log);
    r.cubin.assign(std::istreambuf_iterator<char>(cubin_in), std::istreambuf_iterator<char>());
    if (r.cubin.size() != meta.at("cubin_bytes").get<std::size_t>()) return std::nullopt; // truncated
    r.resources = compiled_kernel_resources(r.log, r.lowered_name, r.cubin);
    return r;
  } catch (const std::exception&) {
    return std::nullopt; // a damaged entry is a miss; the store overwrites it
  }
}

void CompileCache::store(const CompileRequest& request, const CompileResult& result) const {
  if (!result.ok) return;
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  const std::string text = key_text(request);
  const std::string digest = digest128(text);
  const nlohmann::json meta{{"key", text},
                            {"lowered_name", result.lowered_name},
                            {"log", result.log},
                            {"cubin_bytes", result.cubin.size()}};
  // CUBIN first: a reader only trusts an entry whose metadata exists and
  // whose recorded size matches the CUBIN.
  const bool ok = write_atomically(folder_ / (digest + ".cubin"), std::string(result.cubin.begin(), result.cubin.end())) &&
                  write_atomically(folder_ / (digest + ".json"), meta.dump());
  if (!ok) warn_once("cannot write the compile cache in " + folder_.string() + " (set MEMTUNE_CACHE_DIR)");
}

CompileResult compile_cached(const CompileRequest& request, const CompileCache* cache) {
  if (cache) {
    if (auto hit = cache->load(request)) return std::move(*hit);
  }
  CompileResult result = compile(request);
  if (cache) cache->store(request, result);
  return result;
}

} // namespace memtune
