#include <memtune/compile/compile_cache.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>

#include "../digest.hpp"

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

// What NVRTC may read from an include folder: every file's name, size and
// modification time, in a stable order. Bounded, so a huge folder (a system
// include tree) costs a bounded scan; past the bound, changes go unnoticed.
void list_include_folder(std::ostringstream& key, const std::string& folder) {
  constexpr std::size_t kMaxEntries = 20000;
  std::vector<std::string> lines;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(folder, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (lines.size() == kMaxEntries) {
      lines.emplace_back("(listing truncated)");
      break;
    }
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    const auto size = it->file_size(entry_ec);
    const auto time = it->last_write_time(entry_ec).time_since_epoch().count();
    lines.push_back(std::filesystem::relative(it->path(), folder, entry_ec).string() + " " + std::to_string(size) + " " +
                    std::to_string(time));
  }
  if (ec) lines.push_back("(unreadable: " + ec.message() + ")");
  std::sort(lines.begin(), lines.end());
  key << "include_path=" << folder << "\n";
  for (const auto& line : lines) key << "  " << line << "\n";
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

std::string CompileCache::key_text(const CompileRequest& r) {
  std::ostringstream key;
  key << "memtune-compile-cache-v1\n"
      // The linked NVRTC by version (as before loaded ones existed, so caches
      // stay warm); a loaded one by version and path.
      << "nvrtc=" << (r.nvrtc_library.empty() ? nvrtc_version() : compiler_identity(r)) << "\n"
      << "arch=sm_" << r.compute_capability << "\n"
      << "name=" << r.name_expression << "\n";
  for (const auto& o : r.options) key << "option=" << o << "\n";
  // Only present when used, so the keys of requests without them are as before.
  for (const auto& folder : r.include_paths) list_include_folder(key, folder);
  for (const auto& h : r.headers) key << "header=" << h.name << " " << h.text.size() << "\n" << h.text << "\n";
  key << "source=" << r.source;
  return key.str();
}

std::string CompileCache::key_digest(const CompileRequest& r) {
  return digest128(key_text(r));
}

std::optional<CompileResult> CompileCache::load(const CompileRequest& request) const {
  const std::string digest = key_digest(request);
  std::ifstream meta_in(folder_ / (digest + ".json"));
  std::ifstream cubin_in(folder_ / (digest + ".cubin"), std::ios::binary);
  if (!meta_in || !cubin_in) return std::nullopt;
  try {
    const nlohmann::json meta = nlohmann::json::parse(meta_in);
    if (meta.at("key").get<std::string>() != key_text(request)) return std::nullopt; // collision: recompile
    CompileResult r;
    r.ok = true;
    r.from_cache = true;
    r.lowered_name = meta.at("lowered_name").get<std::string>();
    r.log = meta.at("log").get<std::string>();
    r.resources = parse_ptxas_report(r.log, r.lowered_name);
    r.compiler = compiler_identity(request);
    r.cubin.assign(std::istreambuf_iterator<char>(cubin_in), std::istreambuf_iterator<char>());
    if (r.cubin.size() != meta.at("cubin_bytes").get<std::size_t>()) return std::nullopt; // truncated
    return r;
  } catch (const std::exception&) {
    return std::nullopt; // a damaged entry is a miss; the store overwrites it
  }
}

void CompileCache::store(const CompileRequest& request, const CompileResult& result) const {
  if (!result.ok) return;
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  const std::string digest = key_digest(request);
  const nlohmann::json meta{{"key", key_text(request)},
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
  CompileResult result = nvrtc_compile(request);
  if (cache) cache->store(request, result);
  return result;
}

} // namespace memtune
