# The bench tools on bad recordings: exit 1 with a message naming the file,
# never `terminate called` or a crash. Run by ctest (bench_bad_input):
#   cmake -DTOOLS="search_bench;model_validation" -DGOOD=valid.json -DWORK=dir -P bench_bad_input.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(READ ${GOOD} good)

# name -> content
set(cases not_json overflow wrong_type unknown_axis deep)
set(not_json "{\n  \"schema_version\": 1,\n  \"template\": ")
string(REPLACE "\"schema_version\": 1" "\"schema_version\": 1e400" overflow "${good}")
string(REGEX REPLACE "\"trials\": *\\[" "\"trials\": 5, \"unused\": [" wrong_type "${good}")
string(REGEX REPLACE "\"config\": *{" "\"config\": {\"warp_shuffle\": 1, " unknown_axis "${good}")
# ~30000 levels of constraint expression: the stack overflow of the issue.
string(REPEAT "{\"op\": \"+\", \"args\": [1, " 30000 open)
string(REPEAT "]}" 30000 close)
string(REGEX REPLACE "\"constraints\": *\\[" "\"constraints\": [{\"lhs\": ${open}1${close}, \"cmp\": \"<=\", \"rhs\": 1}, " deep "${good}")

set(failures "")
foreach(name IN LISTS cases)
  set(file ${WORK}/${name}.json)
  file(WRITE ${file} "${${name}}")
  foreach(tool IN LISTS TOOLS)
    execute_process(COMMAND ${tool} ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    get_filename_component(tool_name ${tool} NAME)
    if(NOT rc STREQUAL "1" OR NOT err MATCHES "${name}\\.json" OR err MATCHES "terminate called")
      string(APPEND failures "${tool_name} ${name}.json: exit ${rc}, stderr: ${err}\n")
    else()
      string(REGEX MATCH "[^\n]*${name}\\.json[^\n]*" line "${err}")
      string(SUBSTRING "${line}" 0 200 line)
      message(STATUS "${tool_name} ${name}.json: exit 1: ${line}")
    endif()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "bench tools on bad input:\n${failures}")
endif()
