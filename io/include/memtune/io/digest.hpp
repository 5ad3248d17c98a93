#pragma once
// Internal: the 128-bit digest (32 hex characters) memtune names things by:
// compile cache entries, kernel description fingerprints. Two FNV-1a 64-bit
// hashes with different bases; not cryptographic (the cache also compares
// the full key text, so a collision can never return the wrong kernel).
#include <string>
#include <string_view>

namespace memtune {

std::string digest128(std::string_view text);
// Whether `text` has digest128's form: 32 lowercase hexadecimal digits.
bool is_digest128(std::string_view text);

} // namespace memtune
