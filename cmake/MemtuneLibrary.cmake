# memtune_library(<name> SOURCES <file>... [PUBLIC <target>...])
# One of memtune's libraries, the folder it is called from: target
# memtune_<name> (alias memtune::<name>, exported as memtune::<name>), its
# public headers in include/ (memtune/<name>/...), its internal ones in src/,
# linked PUBLIC to the libraries below it that it uses.
function(memtune_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC" ${ARGN})
  add_library(memtune_${name} ${ARG_SOURCES})
  add_library(memtune::${name} ALIAS memtune_${name})
  target_include_directories(memtune_${name}
    PUBLIC
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:include>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(memtune_${name} PUBLIC ${ARG_PUBLIC} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
  target_compile_features(memtune_${name} PUBLIC cxx_std_20)
  set_target_properties(memtune_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME ${name})
endfunction()
