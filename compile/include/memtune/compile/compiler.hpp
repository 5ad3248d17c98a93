#pragma once
// One entry point for both compiler back ends (NVRTC, nvcc): completes the
// request's include folders, picks the back end, and reports what it used in
// CompileResult::compiler.
//
// CompilerKind::automatic compiles with NVRTC and, when NVRTC refuses the
// file for what only nvcc takes (host functions, a header it cannot open),
// with nvcc; the choice is remembered per source for the process, so later
// candidates of the same kernel go straight to nvcc.
#include <memtune/compile/compile_request.hpp>

#include <string>

namespace memtune {

// Compiles `request` (no cache): the contract of nvrtc_compile().
CompileResult compile(const CompileRequest& request);

// The request with the folders memtune searches: its include_paths made
// canonical and absolute, then the source file's folder, then the toolkit's
// include folders (cuda_toolkit.hpp), without duplicates.
CompileRequest with_discovered_includes(const CompileRequest& request);

// True when NVRTC's log says the file needs nvcc: host functions, or a header
// NVRTC cannot open (<cstdio>, a host library's header).
bool nvrtc_log_needs_nvcc(const std::string& log);

// The warning lines of a compiler log (with the source line shown under
// each), without ptxas' resource report.
std::string compiler_warnings(const std::string& log);

// The back end an automatic request resolves to, when known: the choice made
// for the same source earlier in this process.
CompilerKind remembered_compiler(const CompileRequest& request);
void remember_compiler(const CompileRequest& request, CompilerKind kind);

} // namespace memtune
