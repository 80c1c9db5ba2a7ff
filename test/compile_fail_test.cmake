# A compile-fail test (CTest: compile_fail_*): SOURCE must fail to compile with
# a message matching EXPECT, and compile with -DCOMPILES (so the failure is the
# one the test is about, not a broken test).
#
#   cmake -DCXX=... -DSOURCE=... -DEXPECT=... "-DFLAGS=..." -P compile_fail_test.cmake
cmake_minimum_required(VERSION 3.25)
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND ${CXX} ${flags} -fsyntax-only ${SOURCE}
                RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(failed EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but must not")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SOURCE} failed to compile, but not with '${EXPECT}':\n${out}${err}")
endif()
execute_process(COMMAND ${CXX} ${flags} -DCOMPILES -fsyntax-only ${SOURCE}
                RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT failed EQUAL 0)
  message(FATAL_ERROR "${SOURCE} with -DCOMPILES (the control) does not compile:\n${out}${err}")
endif()
