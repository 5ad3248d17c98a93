#pragma once
// A tunable that the kernel's file also #defines. A -D option alone would
// lose to the file's `#define TILE_DIM 32` (the compiler only warns), so every
// candidate would be the file's configuration under another name. memtune
// therefore rewrites that one line to `#define TILE_DIM <candidate's value>`,
// leaving the rest of the file byte-identical, so the -D and the file agree.
//
// A definition guarded by `#ifndef TILE_DIM` (or `#if !defined(TILE_DIM)`) is
// a default that the -D already overrides: it is left alone. A definition
// memtune cannot rewrite faithfully (a function-like macro, one continued on
// the next line) is refused with the macro, the file and the line.
#include <string>
#include <utility>
#include <vector>

namespace memtune {

struct MacroDefinition {
  std::string macro;
  std::size_t line = 0;  // 1-based
  bool guarded = false;  // inside #ifndef MACRO: the -D wins without a rewrite
};

// The definitions of `macros` in `text` (`file` names it in errors), in line
// order. Throws std::invalid_argument "kernel.cu:12 defines TILE_DIM as a
// function-like macro ..." for one that cannot be rewritten.
std::vector<MacroDefinition> find_macro_definitions(const std::string& text, const std::string& file,
                                                    const std::vector<std::string>& macros);

// `text` with each unguarded definition of a macro in `values` (name, value)
// replaced by `#define name value`. Throws find_macro_definitions()' errors
// prefixed with the field: "source.defines.TILE_DIM: kernel.cu:12 defines ...".
std::string substitute_defines(const std::string& text, const std::string& file,
                               const std::vector<std::pair<std::string, std::string>>& values);

} // namespace memtune
