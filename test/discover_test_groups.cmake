# Run after a test program is built (test/CMakeLists.txt, HOOKBUS_TEST_GROUPS):
# lists its GoogleTest tests and writes a CTest file that runs them a group at
# a time, one process per group: each suite, or a suite of more than
# GROUP_SIZE tests cut into groups of at most GROUP_SIZE, in listing order.
# Under the sanitizers a test program's start costs a fifth of a second, so a
# process per test (gtest_discover_tests) spends minutes of CI starting them.
# A group is named `Suite.*`, or `Suite.*[2/5]` for the second of five; its
# output names each test, and its timeout is TIMEOUT per test.
#
#   cmake -DPROGRAM=... -DOUTPUT=... -DWORKING_DIRECTORY=... -DTIMEOUT=120 -DGROUP_SIZE=30
#         [-DFILTER=-Suite.Test] [-DLABELS=threads] -P discover_test_groups.cmake
#
# FILTER, when given, is a negative GoogleTest filter: the tests it names are
# left out (a test CTest runs on its own, with settings of its own).
cmake_minimum_required(VERSION 3.25)

foreach(required PROGRAM OUTPUT WORKING_DIRECTORY TIMEOUT GROUP_SIZE)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "discover_test_groups.cmake: -D${required}=... is required")
  endif()
endforeach()

set(filter_argument)
if(FILTER)
  if(NOT FILTER MATCHES "^-")
    message(FATAL_ERROR "discover_test_groups.cmake: FILTER must leave tests out (\"-Suite.Test\"), not '${FILTER}'")
  endif()
  set(filter_argument "--gtest_filter=${FILTER}")
endif()
execute_process(COMMAND ${PROGRAM} --gtest_list_tests ${filter_argument}
                WORKING_DIRECTORY ${WORKING_DIRECTORY} TIMEOUT 60
                RESULT_VARIABLE failed OUTPUT_VARIABLE listing ERROR_VARIABLE errors)
if(NOT failed EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${failed}), so its tests cannot be listed:\n${listing}${errors}")
endif()

# "Suite." then "  Test" lines; a parameterised one adds "  # GetParam() = ..."
# or "  # TypeParam = ...", which is not part of the name.
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites)
set(suite)
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #]+)\\.( .*)?$")
    set(suite ${CMAKE_MATCH_1})
    list(APPEND suites ${suite})
    set(tests_of_${suite})
  elseif(suite AND line MATCHES "^  ([^ #]+)")
    list(APPEND tests_of_${suite} "${suite}.${CMAKE_MATCH_1}")
  endif()
endforeach()

# A bracket argument that no name can end early.
function(quoted text out)
  set(${out} "[==[${text}]==]" PARENT_SCOPE)
endfunction()

set(script "# Written by discover_test_groups.cmake from ${PROGRAM} --gtest_list_tests.\n")
set(groups 0)
foreach(suite IN LISTS suites)
  list(LENGTH tests_of_${suite} count)
  if(count EQUAL 0)
    continue()
  endif()
  math(EXPR parts "(${count} + ${GROUP_SIZE} - 1) / ${GROUP_SIZE}")
  foreach(part RANGE 1 ${parts})
    math(EXPR first "(${part} - 1) * ${GROUP_SIZE}")
    list(SUBLIST tests_of_${suite} ${first} ${GROUP_SIZE} members)
    list(LENGTH members size)
    if(parts EQUAL 1)
      set(name "${suite}.*")
      set(group_filter "${suite}.*${FILTER}")  # FILTER leaves tests out: "Suite.*-Suite.Test"
    else()
      set(name "${suite}.*[${part}/${parts}]")
      list(JOIN members ":" group_filter)
    endif()
    math(EXPR timeout "${TIMEOUT} * ${size}")
    quoted("${name}" name)
    quoted("${PROGRAM}" program)
    quoted("--gtest_filter=${group_filter}" argument)
    quoted("${WORKING_DIRECTORY}" directory)
    string(APPEND script "add_test(${name} ${program} ${argument})\n"
                         "set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} WORKING_DIRECTORY ${directory}")
    if(LABELS)
      quoted("${LABELS}" labels)
      string(APPEND script " LABELS ${labels}")
    endif()
    string(APPEND script ")\n")
    math(EXPR groups "${groups} + 1")
  endforeach()
endforeach()
if(groups EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} lists no test")
endif()
file(WRITE ${OUTPUT} "${script}")
