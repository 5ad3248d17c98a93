# Turns a CUDA source file into a C++ translation unit defining
#   namespace memtune::templates::embedded { extern const char <SYMBOL>[] = "..."; }
# Run as: cmake -DINPUT=<file.cu> -DOUTPUT=<file.cpp> -DSYMBOL=<name> [-DNAMESPACE=<ns>] -P EmbedSource.cmake
# (NAMESPACE defaults to memtune::templates::embedded; the probes use memtune::probe::embedded).
if(NOT NAMESPACE)
  set(NAMESPACE "memtune::templates::embedded")
endif()
file(READ "${INPUT}" content)
# A source in several files (fdtd.cu includes "fdtd_ring.cuh"): each
# `#include "name"` of a file next to INPUT is replaced by that file, so the
# embedded source is whole and NVRTC needs no headers, while the CPU emulation
# tests compile the same files through their includes.
get_filename_component(folder "${INPUT}" DIRECTORY)
string(REGEX MATCHALL "#include \"[A-Za-z0-9_.-]+\"" local_includes "${content}")
foreach(line IN LISTS local_includes)
  string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" name "${line}")
  if(EXISTS "${folder}/${name}")
    file(READ "${folder}/${name}" part)
    string(REPLACE "${line}" "// ---- ${name}, inlined by cmake/EmbedSource.cmake\n${part}" content "${content}")
  endif()
endforeach()
# A raw string needs a delimiter that cannot occur in the source.
set(delimiter "memtune_embed")
string(FIND "${content}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ${delimiter}")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/EmbedSource.cmake. Do not edit.\n"
  "namespace ${NAMESPACE} {\n"
  "extern const char ${SYMBOL}[];\n"
  "const char ${SYMBOL}[] = R\"${delimiter}(${content})${delimiter}\";\n"
  "} // namespace ${NAMESPACE}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
