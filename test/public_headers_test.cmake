# Issue 10, point 10 (CTest: Issue10Point10.*): every public header, and the
# umbrella hookbus.hpp, compiles on its own with CXX, under the warnings a
# strict user builds with. A compiler that is not installed is a failure, never
# a skip: tools/install-deps installs each one the tests name.
# With -DINSTANTIATE=FILE, it compiles that one source to an object file
# instead (no link: the library may be built by another compiler), so that
# the templates it uses are instantiated, which a header alone never is.
#
#   cmake -DCXX=clang++-14 -DINCLUDE_DIR=.../include -DWORK_DIR=... "-DFLAGS=..." [-DINSTANTIATE=FILE] -P public_headers_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required CXX INCLUDE_DIR WORK_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "public_headers_test.cmake: -D${required}=... is required")
  endif()
endforeach()

find_program(compiler NAMES ${CXX} NO_CACHE)
if(NOT compiler)
  message(FATAL_ERROR "${CXX} is not installed, so the public headers cannot be checked with it; "
                      "./tools/install-deps installs it")
endif()

separate_arguments(flags UNIX_COMMAND "${FLAGS}")
if(DEFINED INSTANTIATE)
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  execute_process(COMMAND ${compiler} -std=c++20 -Wall -Wextra -Wpedantic -Werror -I${INCLUDE_DIR} ${flags}
                          -c ${INSTANTIATE} -o ${WORK_DIR}/instantiated.o
                  RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT failed EQUAL 0)
    message(FATAL_ERROR "the public headers' templates do not instantiate with ${CXX} (${INSTANTIATE}):\n${out}${err}")
  endif()
  message(STATUS "the public headers' templates instantiate with ${compiler}")
  return()
endif()

file(GLOB headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/hookbus/*.hpp)
list(SORT headers)
if(NOT headers)
  message(FATAL_ERROR "no public header in ${INCLUDE_DIR}/hookbus")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(failures "")
foreach(header ${headers})
  string(MAKE_C_IDENTIFIER ${header} name)
  set(source ${WORK_DIR}/${name}.cpp)
  file(WRITE ${source} "#include <${header}>\n")
  execute_process(COMMAND ${compiler} -std=c++20 -Wall -Wextra -Wpedantic -Werror -I${INCLUDE_DIR} ${flags}
                          -fsyntax-only ${source}
                  RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT failed EQUAL 0)
    string(APPEND failures "\n=== ${header} alone, with ${compiler}:\n${out}${err}")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "public headers that do not compile on their own with ${CXX}:${failures}")
endif()
list(LENGTH headers count)
message(STATUS "${count} public headers compile on their own with ${compiler}")
