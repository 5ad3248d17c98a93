# memtune_embed_source(<out_var> <input.cu> <symbol> [NAMESPACE <ns>])
# Adds a build step that turns a CUDA source into a C++ file defining
#   namespace <ns> { extern const char <symbol>[]; }   (default ns: memtune::templates::embedded)
# and returns the generated file's path in <out_var>, to list among a target's sources.
function(memtune_embed_source out_var input symbol)
  cmake_parse_arguments(ARG "" "NAMESPACE" "" ${ARGN})
  if(NOT ARG_NAMESPACE)
    set(ARG_NAMESPACE "memtune::templates::embedded")
  endif()
  set(output "${CMAKE_CURRENT_BINARY_DIR}/generated/${symbol}.cpp")
  # The files a source includes from its own folder are inlined (EmbedSource.cmake).
  get_filename_component(folder "${input}" DIRECTORY)
  file(GLOB parts "${folder}/*.cuh")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol} -DNAMESPACE=${ARG_NAMESPACE}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSource.cmake
    DEPENDS "${input}" ${parts} ${PROJECT_SOURCE_DIR}/cmake/EmbedSource.cmake
    COMMENT "Embedding ${input}"
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()
