# ctest driver (cmake -DBUILD_DIR=... -DSOURCE_DIR=... -P): the install is
# relocatable and the build tree is a package.
#  1. install this build, then move the prefix out of the build tree (copy to
#     a temporary folder, delete the original);
#  2. no installed file names the source tree, the build tree or the original
#     prefix (a path written in at build time would);
#  3. a separate project finds the moved prefix with find_package(memtune),
#     builds, and runs; the moved `memtune targets` runs; both with the source
#     and build trees hidden (an empty tmpfs mounted over them in a private
#     mount namespace, `unshare -rm`) where the system allows it;
#  4. the same project builds against the build tree (-Dmemtune_DIR=<build>).
# Runs a step; its output is shown when it fails, or when `what` starts with
# "the" (the programs under test, whose output says what they found).
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  if(what MATCHES "^the ")
    message(STATUS "${what}: ok\n${out}")
  else()
    message(STATUS "${what}: ok")
  endif()
endfunction()

set(work "${BUILD_DIR}/test-export")
file(REMOVE_RECURSE "${work}")
set(tmp "$ENV{TMPDIR}")
if(NOT tmp)
  set(tmp "/tmp")
endif()
string(RANDOM LENGTH 8 tag)
set(moved "${tmp}/memtune-moved-${tag}/prefix")
set(consumer "${tmp}/memtune-moved-${tag}/consumer")

run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${work}/prefix")
file(MAKE_DIRECTORY "${moved}")
run("moving the prefix" ${CMAKE_COMMAND} -E copy_directory "${work}/prefix" "${moved}")
file(REMOVE_RECURSE "${work}/prefix")

# 2. No baked path: every installed file, binaries included. The one kind of
# source path allowed is a source file's own name in an error message's
# location (__FILE__ of MEMTUNE_CU and friends): nothing is looked up there.
file(GLOB_RECURSE installed LIST_DIRECTORIES false "${moved}/*")
set(locations 0)
foreach(path "${SOURCE_DIR}" "${BUILD_DIR}" "${work}/prefix")
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" pattern "${path}")
  foreach(f IN LISTS installed)
    file(STRINGS "${f}" hits REGEX "${pattern}")
    foreach(hit IN LISTS hits)
      string(REGEX MATCHALL "${pattern}/[A-Za-z0-9_./-]+\\.(cpp|hpp|h|cuh|cu)" sources "${hit}")
      set(rest "${hit}")
      foreach(src IN LISTS sources)
        if(EXISTS "${src}" AND NOT "${path}" STREQUAL "${work}/prefix")
          string(REPLACE "${src}" "" rest "${rest}")
          math(EXPR locations "${locations} + 1")
        endif()
      endforeach()
      if(rest MATCHES "${pattern}")
        message(FATAL_ERROR "${f} names ${path}: ${hit}")
      endif()
    endforeach()
  endforeach()
endforeach()
list(LENGTH installed n)
message(STATUS "${n} installed files name neither the source tree, the build tree nor the original prefix "
               "(${locations} source file names in error locations)")

# 3. The moved prefix from a separate project.
run("configuring the consumer against the moved prefix" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/cmake/test_export"
    -B "${consumer}" -DCMAKE_PREFIX_PATH=${moved} -DCMAKE_BUILD_TYPE=Release)
run("building the consumer" ${CMAKE_COMMAND} --build "${consumer}")
set(clean_env ${CMAKE_COMMAND} -E env --unset=MEMTUNE_TARGETS_DIR --unset=MEMTUNE_WORKER)
set(hide "")
execute_process(COMMAND unshare -rm sh -c "mount -t tmpfs none '${SOURCE_DIR}'" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  set(mounts "mount -t tmpfs none '${SOURCE_DIR}'")
  string(FIND "${BUILD_DIR}" "${SOURCE_DIR}/" inside)
  if(NOT inside EQUAL 0)
    string(APPEND mounts " && mount -t tmpfs none '${BUILD_DIR}'")
  endif()
  # The tree must really be gone in there, or the test proves nothing.
  set(check "test -z \"$(ls -A '${SOURCE_DIR}')\" && test -z \"$(ls -A '${BUILD_DIR}' 2>/dev/null)\"")
  run("the moved memtune targets and the consumer, source and build trees hidden" ${clean_env}
      unshare -rm sh -c "${mounts} && ${check} && cd / && '${moved}/bin/memtune' targets && '${consumer}/consumer' '${moved}'")
else()
  message(STATUS "unshare -rm cannot mount here: the source and build trees stay visible; step 2 checked that no "
                 "installed file names them")
  run("the moved memtune targets" ${clean_env} "${moved}/bin/memtune" targets WORKING_DIRECTORY /)
  run("the consumer of the moved prefix" ${clean_env} "${consumer}/consumer" "${moved}")
endif()
file(REMOVE_RECURSE "${tmp}/memtune-moved-${tag}")

# 4. The build tree as a package.
run("configuring the consumer against the build tree" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/cmake/test_export"
    -B "${work}/build-tree-consumer" -Dmemtune_DIR=${BUILD_DIR} -DCMAKE_BUILD_TYPE=Release)
run("building the build tree's consumer" ${CMAKE_COMMAND} --build "${work}/build-tree-consumer")
run("the build tree's consumer" ${clean_env} "${work}/build-tree-consumer/consumer" "${BUILD_DIR}")
