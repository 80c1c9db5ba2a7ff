# The installed-package test (CTest: install_consumer). Installs BUILD_DIR into
# WORK_DIR/prefix, then configures, builds and runs SOURCE_DIR/test/consumer
# against that prefix alone, and checks what it prints.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DBUILD_TYPE=...
#         -DCXX_COMPILER=... -DCXX_FLAGS=... -DLINKER_FLAGS=... -P install_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "install_test.cmake: -D${required}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer)
file(REMOVE_RECURSE ${WORK_DIR})

# Runs a command; on failure stops with its output. Leaves stdout in step_output.
function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}):\n${output}\n${errors}")
  endif()
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run_step("consumer configure" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/consumer -B ${consumer_build}
  -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
  -DCMAKE_PREFIX_PATH=${prefix})

# The package must come from the scratch prefix, not from the source or build tree.
file(STRINGS ${consumer_build}/CMakeCache.txt hookbus_dir REGEX "^hookbus_DIR:")
if(NOT hookbus_dir MATCHES "=${prefix}/")
  message(FATAL_ERROR "consumer found hookbus outside the install prefix: ${hookbus_dir}")
endif()

run_step("consumer build" ${CMAKE_COMMAND} --build ${consumer_build})
run_step("consumer run" ${consumer_build}/consumer)
set(expected "{\"type\":\"tool_call\",\"context\":{\"session_id\":\"\",\"cwd\":\"\",\"agent_id\":\"\",\"invoked_by\":\"main\",\"transcript_path\":\"\",\"permission_mode\":\"\",\"recipe_name\":\"\",\"workspace\":\"\"},\"tool_call_id\":\"c1\",\"tool_name\":\"bash\",\"input\":{\"command\":\"ls\"}}\ntool_call{tool_call_id=\"c1\", tool_name=\"bash\", input={\"command\":\"ls\"}}\ndenied: no\n")
if(NOT step_output STREQUAL expected)
  message(FATAL_ERROR "consumer printed:\n${step_output}\nexpected:\n${expected}")
endif()
message(STATUS "installed package works:\n${step_output}")
