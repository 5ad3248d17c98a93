#pragma once
// The one way memtune writes a file it must never leave half-written
// (profile stores, recordings, target profiles, compile-cache entries):
// a temporary file in the same folder, written and fsynced, then renamed over
// the file (and the folder fsynced). A reader sees the old or the new content,
// never a mix; a writer killed at any moment leaves the old file.
//
// Stores that several processes update (profile stores) add a lock:
//
//   io::update_file_locked("app.memtune.json", [](const std::optional<std::string>& current) {
//     Store s = current ? parse(*current) : Store{};   // throw to leave the file untouched
//     s.add(entry);
//     return s.dump();
//   });
//
// A symbolic link is followed: the file it points to is replaced and the link
// stays. A path naming a folder ("out/", an existing directory) is refused
// before anything is created.
#include <memtune/io/errors.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace memtune::io {

enum class Durability {
  fsync,    // survives a power cut: the file and its folder are fsynced (stores, recordings)
  no_fsync, // survives a killed process only (caches that can be rebuilt)
};

// Replaces (or creates) `file` with `text`. Creates missing parent folders.
// Throws InputError naming the file (a folder, no permission, disk full).
void write_file_atomically(const std::filesystem::path& file, std::string_view text,
                           Durability durability = Durability::fsync);

// Read-modify-write under an exclusive advisory lock on "<file>.lock" (next
// to the file a link points to, so every name of one store shares the lock).
// `update` gets the current content (nullopt when the file does not exist) and
// returns the new one; an exception from it leaves the file untouched and
// propagates. Temporary files of writers killed earlier are removed first.
void update_file_locked(const std::filesystem::path& file,
                        const std::function<std::string(const std::optional<std::string>& current)>& update,
                        Durability durability = Durability::fsync);

// The file that writing `file` replaces: symbolic links followed (a dangling
// link gives its target). Throws InputError when `file` names a folder.
[[nodiscard]] std::filesystem::path output_file(const std::filesystem::path& file);

// Whether two paths name the same file once links are followed (also when
// neither exists yet).
[[nodiscard]] bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// The temporary-file name prefix of `file`: "<name>.tmp-". Temporaries are
// "<name>.tmp-<pid>-<counter>" in the file's folder.
[[nodiscard]] std::string temporary_prefix(const std::filesystem::path& file);

} // namespace memtune::io
