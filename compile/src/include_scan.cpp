#include <memtune/compile/include_scan.hpp>

#include <memtune/io/digest.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

namespace memtune {
namespace {

namespace fs = std::filesystem;

struct Directive {
  bool quoted = false; // "x" (the including file's folder first) or <x>
  std::string name;    // as written; for a computed include, the macro text
  bool computed = false;
};

// The #include lines of `text`, in order. A hand scan rather than a regex:
// the toolkit's headers run to megabytes and are scanned on every cold start.
std::vector<Directive> directives(const std::string& text) {
  std::vector<Directive> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::size_t i = pos;
    const auto skip_blanks = [&] {
      while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    skip_blanks();
    if (i < end && text[i] == '#') {
      ++i;
      skip_blanks();
      if (text.compare(i, 7, "include") == 0) {
        i += 7;
        if (text.compare(i, 5, "_next") == 0) i += 5;
        skip_blanks();
        if (i < end && (text[i] == '"' || text[i] == '<')) {
          const char close = text[i] == '"' ? '"' : '>';
          const std::size_t stop = text.find(close, i + 1);
          if (stop != std::string::npos && stop < end)
            out.push_back({close == '"', text.substr(i + 1, stop - i - 1), false});
        } else if (i < end) {
          std::string macro = text.substr(i, end - i);
          while (!macro.empty() && (macro.back() == '\r' || macro.back() == ' ')) macro.pop_back();
          out.push_back({false, macro, true});
        }
      }
    }
    pos = end + 1;
  }
  return out;
}

struct ScannedFile {
  std::uintmax_t size = 0;
  fs::file_time_type time;
  std::string digest;
  std::vector<Directive> includes;
};

std::mutex memo_mutex;
std::unordered_map<std::string, std::shared_ptr<const ScannedFile>> memo; // by canonical path

// The file's digest and directives, read again only when it changed.
std::shared_ptr<const ScannedFile> scan_file(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return nullptr;
  const auto time = fs::last_write_time(path, ec);
  if (ec) return nullptr;
  const std::string key = path.string();
  {
    std::lock_guard lock(memo_mutex);
    auto it = memo.find(key);
    if (it != memo.end() && it->second->size == size && it->second->time == time) return it->second;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) return nullptr;
  auto f = std::make_shared<const ScannedFile>(ScannedFile{size, time, digest128(text.str()), directives(text.str())});
  std::lock_guard lock(memo_mutex);
  memo[key] = f;
  return f;
}

// Where an #include lands, remembered per process: resolving walks the
// include folders and canonicalises the hit, system calls that would cost a
// warm candidate hundreds of milliseconds for a kernel including the
// toolkit's headers. A header created in an include folder after the first
// lookup of its name is not noticed by this process (content edits are:
// scan_file checks size and time).
std::unordered_map<std::string, fs::path> resolved_memo;

fs::path resolve(const Directive& d, const fs::path& including_dir, const std::vector<fs::path>& include_dirs) {
  std::string key = (d.quoted ? including_dir.string() : std::string()) + '\n' + d.name;
  for (const auto& dir : include_dirs) key += '\n' + dir.string();
  {
    std::lock_guard lock(memo_mutex);
    if (auto it = resolved_memo.find(key); it != resolved_memo.end()) return it->second;
  }
  fs::path found;
  std::error_code ec;
  if (d.quoted && !including_dir.empty()) {
    const fs::path p = including_dir / d.name;
    if (fs::is_regular_file(p, ec)) found = fs::canonical(p, ec);
  }
  for (std::size_t i = 0; found.empty() && i < include_dirs.size(); ++i) {
    const fs::path p = include_dirs[i] / d.name;
    if (fs::is_regular_file(p, ec)) found = fs::canonical(p, ec);
  }
  if (!found.empty()) { // an unresolved name may appear later: not remembered
    std::lock_guard lock(memo_mutex);
    resolved_memo.emplace(std::move(key), found);
  }
  return found;
}

} // namespace

std::vector<IncludedFile> scan_includes(const std::string& source, const fs::path& source_dir,
                                        const std::vector<CompileHeader>& headers,
                                        const std::vector<fs::path>& include_dirs) {
  std::map<std::string, IncludedFile> found;
  // Work list: the directives of one file and the folder it lives in.
  struct Pending {
    std::vector<Directive> includes;
    fs::path dir;
  };
  std::vector<Pending> work{{directives(source), source_dir}};
  while (!work.empty()) {
    Pending p = std::move(work.back());
    work.pop_back();
    for (const auto& d : p.includes) {
      if (d.computed) {
        found.emplace("?" + d.name, IncludedFile{"?" + d.name, ""});
        continue;
      }
      const auto header = std::find_if(headers.begin(), headers.end(), [&](const CompileHeader& h) { return h.name == d.name; });
      if (header != headers.end()) {
        const std::string key = "<memory>/" + header->name;
        if (found.emplace(key, IncludedFile{key, digest128(header->text)}).second)
          work.push_back({directives(header->text), p.dir});
        continue;
      }
      const fs::path path = resolve(d, p.dir, include_dirs);
      if (path.empty()) {
        found.emplace("?" + d.name, IncludedFile{"?" + d.name, ""});
        continue;
      }
      if (found.count(path.string())) continue;
      const auto f = scan_file(path);
      if (!f) {
        found.emplace(path.string(), IncludedFile{path.string(), "(unreadable)"});
        continue;
      }
      found.emplace(path.string(), IncludedFile{path.string(), f->digest});
      work.push_back({f->includes, path.parent_path()});
    }
  }
  std::vector<IncludedFile> out;
  out.reserve(found.size());
  for (auto& [_, f] : found) out.push_back(std::move(f));
  return out;
}

} // namespace memtune
