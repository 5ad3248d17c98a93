#pragma once
// The headers a source may include, found by following its #include lines
// through the folders the compiler searches, each with a digest of its
// content. The compile cache keys on them instead of on whole include
// folders: a kernel that includes <cooperative_groups.h> keys on the few
// hundred headers that pulls in, not on a listing of the toolkit, and an
// edited header misses the cache.
//
// Every #include line counts, whether or not a preprocessor condition around
// it holds, so the set is a superset of what the compiler reads (a harmless
// extra key entry, never a missed edit). A computed include (`#include MACRO`)
// or a name that resolves nowhere is kept by its text.
#include <memtune/compile/compile_request.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace memtune {

struct IncludedFile {
  std::string path;   // canonical absolute path; "<memory>/name" for an in-memory header, "?name" when unresolved
  std::string digest; // digest128 of the content ("" when unresolved)
  friend bool operator==(const IncludedFile&, const IncludedFile&) = default;
};

// Sorted by path, no duplicates. `source_dir`: the folder `#include "x"`
// looks in first (the source file's own folder; may be empty). Files are read
// once per process while their size and modification time stay the same.
std::vector<IncludedFile> scan_includes(const std::string& source, const std::filesystem::path& source_dir,
                                        const std::vector<CompileHeader>& headers,
                                        const std::vector<std::filesystem::path>& include_dirs);

} // namespace memtune
