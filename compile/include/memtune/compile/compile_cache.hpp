#pragma once
// On-disk cache of compiled kernels, keyed by everything that changes the
// CUBIN: source, name expression, options, architecture, the compiler (the
// linked NVRTC's version, a loaded NVRTC's version and path, or nvcc's version
// and path), the canonical include folders and the content of the headers the
// source includes (include_scan.hpp): kilobytes of key, whatever the toolkit.
//
// One entry is two files in the cache folder: <key>.cubin and <key>.json (the
// lowered name, the ptxas report and the full key text, compared on lookup so
// a hash collision can never return the wrong kernel). Entries are written to
// a temporary file and renamed, so concurrent processes never see half a file.
#include <memtune/compile/compile_request.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace memtune {

class CompileCache {
public:
  explicit CompileCache(std::filesystem::path folder);

  // $MEMTUNE_CACHE_DIR, else $XDG_CACHE_HOME/memtune, else ~/.cache/memtune.
  static std::filesystem::path default_folder();

  [[nodiscard]] std::optional<CompileResult> load(const CompileRequest& request) const;
  // Stores successful results only; a failure to write is reported on stderr
  // once and otherwise ignored (a cache must never break a tuning run).
  void store(const CompileRequest& request, const CompileResult& result) const;

  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }

  // The full key text and its 128-bit digest (32 hex characters).
  static std::string key_text(const CompileRequest& request);
  static std::string key_digest(const CompileRequest& request);

private:
  std::filesystem::path folder_;
};

// Compiles through the cache (compiler.hpp's compile() on a miss): a hit
// returns the stored result (from_cache). An automatic request whose back end
// this process has not chosen yet finds an entry of either.
CompileResult compile_cached(const CompileRequest& request, const CompileCache* cache);

} // namespace memtune
