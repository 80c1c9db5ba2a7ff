# The doc_examples harness's own test (CTest: doc_examples_harness): on the
# documents of test/doc_examples_fixture, a wrong output, an unexpected exit
# status and a C++ block that does not compile must each fail, named by the
# document's file and line; the right example in its README.md must pass.
#
#   cmake -DPYTHON=... -DSCRIPT=... -DHOOKCTL=... -DFIXTURE=... -DWORK_DIR=...
#         -DCXX_COMPILER=... -DINCLUDE_DIR=... -P doc_examples_harness_test.cmake
cmake_minimum_required(VERSION 3.25)

function(expect_in text what)
  string(FIND "${text}" "${what}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "expected\n  ${what}\nin\n${text}")
  endif()
endfunction()

execute_process(COMMAND ${PYTHON} ${SCRIPT} sh ${HOOKCTL} ${FIXTURE}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(result EQUAL 77)  # not run: /etc/hookbus exists (doc_examples.py, managed_directory_isolated)
  message("${errors}")
  return()
endif()
if(NOT result EQUAL 1)
  message(FATAL_ERROR "the harness exited ${result} on broken examples:\n${output}\n${errors}")
endif()
expect_in("${output}" "4 commands in the docs' sh blocks, 3 failed")
expect_in("${errors}" "docs/broken.md:7: $ hookctl schema turn_start\n  printed something else:")
expect_in("${errors}" "-  \"event\": \"not what it prints\"")
expect_in("${errors}" "docs/broken.md:11: $ hookctl schema no_such_event\n  exited 2;")
expect_in("${errors}" "docs/broken.md:15: hookctl schema nope")

file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${PYTHON} ${SCRIPT} cpp ${WORK_DIR} ${FIXTURE}
  RESULT_VARIABLE result OUTPUT_VARIABLE generated ERROR_VARIABLE errors)
string(STRIP "${generated}" generated)
if(NOT result EQUAL 0 OR NOT generated STREQUAL "${WORK_DIR}/docs_broken.cpp")
  message(FATAL_ERROR "extracting the fixture's C++ blocks gave ${result} '${generated}':\n${errors}")
endif()
execute_process(COMMAND ${CXX_COMPILER} -std=c++20 -fsyntax-only -I${INCLUDE_DIR} -I${CMAKE_CURRENT_LIST_DIR} ${generated}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(result EQUAL 0)
  message(FATAL_ERROR "the broken C++ block compiled")
endif()
expect_in("${errors}" "docs/broken.md:20:9: error: ")
expect_in("${errors}" "undeclared_name")
