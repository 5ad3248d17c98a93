#pragma once
// The environment variables a Session reads (session.hpp), parsed so that a
// bad value is an InputError naming the variable, never a bare JSON exception
// from deep inside an application's start-up:
//   $MEMTUNE_CONFIG: field 'block_size': 100 is not a value of axis 'block_size'
#include <memtune/search/space.hpp>

#include <optional>

namespace memtune {

// MEMTUNE_CONFIG='{"block_size":256,...}': a configuration of `space`, valid
// there (constraints included). `text` is the variable's value.
[[nodiscard]] search::Config pinned_config(const char* text, const search::Space& space);

// MEMTUNE_NO_TUNE: unset, "" or "0": tune; "1": do not. Anything else is an
// InputError (a typo must not silently tune for an hour).
[[nodiscard]] bool tuning_disabled(const char* text);

} // namespace memtune
