# Turns a CUDA source file into a C++ translation unit defining
#   namespace memtune::templates::embedded { extern const char <SYMBOL>[] = "..."; }
# Run as: cmake -DINPUT=<file.cu> -DOUTPUT=<file.cpp> -DSYMBOL=<name> [-DNAMESPACE=<ns>] -P EmbedSource.cmake
# (NAMESPACE defaults to memtune::templates::embedded; the probes use memtune::probe::embedded).
if(NOT NAMESPACE)
  set(NAMESPACE "memtune::templates::embedded")
endif()
file(READ "${INPUT}" content)
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
