#pragma once
namespace memtune {
inline constexpr const char* kVersion = "0.1.0";
// Bumped when a JSON document's layout changes incompatibly.
inline constexpr int kSchemaVersion = 1;
} // namespace memtune
