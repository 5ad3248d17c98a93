#pragma once
// The kernel description file format (schema_version 1), the JSON twin of
// KernelBuilder. docs/kernel-description.md is the reference; in short:
//
// {
//   "schema_version": 1,
//   "name": "transpose",
//   "summary": "out = in^T for a rows x cols float matrix",
//   "source": {"files": ["transpose.cu"],            // relative to this file; [0] is compiled, others are headers
//              "include_paths": [], "options": [],
//              "kernel": "transpose<{TILE}, {ROWS}, {PAD}>",
//              "defines": ["TILE"] or {"USE_LDG": "{USE_LDG}"}},
//   "problem": {"rows": {"default": "4K", "min": 1, "size": true, "description": "..."},
//               "layout": {"values": ["col", "row"], "default": "col"}},
//   "parameters": {"TILE": [16, 32, 64], "T": ["float", "double"], "USE_LDG": "bool",
//                  "PAD": {"values": [0, 1], "description": "...", "only_if": "compute_capability >= 70",
//                          "pruned_reason": "..."}},
//   "derived": {"tiles_x": "ceil_div(cols, TILE)"},
//   "constraints": ["TILE * ROWS <= max_threads_per_block",
//                   {"expr": "ROWS <= TILE", "reason": "a thread copies TILE / ROWS rows"}],
//   "launch": {"block": ["TILE", "ROWS"], "grid": ["tiles_x", "ceil_div(rows, TILE)"], "shared_memory": "0"},
//   "arguments": [{"name": "out", "buffer": "float", "count": "rows * cols", "role": "out"},
//                 {"name": "in", "buffer": "float", "count": "rows * cols", "role": "in",
//                  "fill": {"random": [-1, 1]}},             // or {"constant": 0}
//                 {"name": "rows", "scalar": "int", "value": "rows"},
//                 {"name": "alpha", "scalar": "float", "value": 2.5, "from_caller": true}],
//   "constants": [{"symbol": "coeffs", "type": "float", "count": "taps", "fill": {"random": [-1, 1]},
//                  "from_caller": true}],
//   "bytes_moved": "2 * rows * cols * 4",                      // optional
//   "verify": {"reference_config": {"TILE": 16, "ROWS": 16, "PAD": 0}, "tolerance": {"abs": 0, "rel": 1e-6}}
//          or {"reference_kernel": {"kernel": "transpose_naive", "files": ["naive.cu"], "block": ["32", "8"],
//                                   "grid": ["ceil_div(cols, 32)", "ceil_div(rows, 32)"]}, "tolerance": {...}},
//   "default": {"TILE": 32, "ROWS": 8, "PAD": 1}                // optional
// }
//
// Objects keep their order (it is the grid order of parameters and the
// evaluation order of derived values). Integers may be written as size text
// ("16M"). Every error names the file, the field (a JSON path such as
// `arguments[2].count`) and the reason; unknown fields are errors.
#include <memtune/description/kernel_description.hpp>
#include <memtune/io/errors.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace memtune {

// A description that cannot be used: "<file>: <field>: <reason>".
// A bad file (exit 1 in the CLI), like every other reader's InputError.
class DescriptionError : public InputError {
public:
  DescriptionError(std::string file, std::string field, std::string reason);
  // A JSON syntax error: the line is known, not the field.
  DescriptionError(std::string file, std::size_t line, std::string reason);
  [[nodiscard]] const std::string& reason() const { return message(); }
};

// Reads, parses and validates a description file; source files are read
// relative to its folder. Throws DescriptionError (a JSON syntax error names
// the line and column).
[[nodiscard]] KernelDescription load_description(const std::filesystem::path& file);

// From the text of a description file (what load_description reads); `origin`
// names it in errors. Refuses a duplicate key and nesting deeper than
// io::JsonLimits' depth.
[[nodiscard]] KernelDescription description_from_text(const std::string& text, const std::string& origin,
                                                      const std::filesystem::path& base_folder);

// From an already parsed document; `origin` names it in errors, `base_folder`
// resolves relative source paths.
[[nodiscard]] KernelDescription description_from_json(const nlohmann::ordered_json& document, const std::string& origin,
                                                      const std::filesystem::path& base_folder);

// From KernelDescription::to_data(): the description with its source files'
// text, so nothing is read from disk. `origin` names it in errors; a field
// missing or of the wrong type is a DescriptionError like a file's.
[[nodiscard]] KernelDescription description_from_data(const nlohmann::ordered_json& data, const std::string& origin);

} // namespace memtune
