# The doc_examples harness's own test (CTest: doc_examples_harness): on the
# documents of test/doc_examples_fixture, a wrong output, an unexpected exit
# status and a C++ block that does not compile must each fail, named by the
# document's file and line (docs/broken.md), and so must every example the
# harness would otherwise skip in silence (docs/unseen.md); the right examples
# in its README.md must pass: a Python hook written to a file and run, a
# hookctl command after a variable, a C++ file its command compiles, a synopsis.
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

function(expect_not_in text what)
  string(FIND "${text}" "${what}" found)
  if(NOT found EQUAL -1)
    message(FATAL_ERROR "did not expect\n  ${what}\nin\n${text}")
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
expect_in("${output}" "9 commands in the docs' sh blocks; 13 failures")
expect_not_in("${errors}" "README.md")
expect_in("${errors}" "docs/broken.md:7: $ hookctl schema turn_start\n  printed something else:")
expect_in("${errors}" "-  \"event\": \"not what it prints\"")
expect_in("${errors}" "docs/broken.md:11: $ hookctl schema no_such_event\n  exited 2;")
expect_in("${errors}" "docs/broken.md:15: hookctl schema nope")
# What would be skipped: indented and ~~~ fences (each line of them), an
# unknown language, hookctl in a ```text block that is no synopsis, a script
# written to no file, a C++ file nothing compiles...
foreach(line 7 9 11 13)
  expect_in("${errors}" "docs/unseen.md:${line}: a fence this harness does not read (indented, or ~~~)")
endforeach()
expect_in("${errors}" "docs/unseen.md:15: fence language 'bash' is not one the doc_examples harness knows")
expect_in("${errors}" "docs/unseen.md:20: a hookctl command in a ```text block is never run")
expect_in("${errors}" "docs/unseen.md:24: a script that nothing runs")
expect_in("${errors}" "docs/unseen.md:29: the ```cpp block written to lonely.cpp is compiled by no command of this document")
# ...and hookctl after a command or a variable is run (and fails here), but not a script's lines.
expect_in("${errors}" "docs/unseen.md:36: cd . && hookctl schema nope\n  exited 2;")
expect_in("${errors}" "docs/unseen.md:37: NO_COLOR=1 hookctl schema nope\n  exited 2;")
expect_not_in("${errors}" "docs/unseen.md:45")

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
