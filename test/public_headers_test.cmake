# CTest PublicHeaders.* (issue 10, point 10): hookbus's public headers, the
# umbrella hookbus.hpp among them, compile with CXX under the warnings a strict
# user builds with. A compiler that is not installed is a failure, never a
# skip: tools/install-deps installs each one the tests name.
# Without INSTANTIATE, each header is compiled on its own (-fsyntax-only), as
# the only include of a file: a header that leans on another's includes fails.
# With -DINSTANTIATE=FILE, one source includes every header and then FILE, and
# is compiled to an object file (no link: the library may be built by another
# compiler), so that the headers' templates are instantiated too, which a
# header alone never is. test/CMakeLists.txt runs the second with every
# compiler users have and the first with one: whether a header includes what
# it uses does not change with the compiler (all of them use libstdc++), and
# each header parsed alone costs a minute and a half of CPU per compiler.
#
# -DPART=I/N parses the I-th of N shares of the headers alone (I from 1),
# so that CTest runs the shares side by side.
#
#   cmake -DCXX=clang++-14 -DINCLUDE_DIR=.../include -DWORK_DIR=... "-DFLAGS=..." [-DINSTANTIATE=FILE | -DPART=I/N]
#         -P public_headers_test.cmake
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
file(GLOB headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/hookbus/*.hpp)
list(SORT headers)
if(NOT headers)
  message(FATAL_ERROR "no public header in ${INCLUDE_DIR}/hookbus")
endif()

if(DEFINED INSTANTIATE)
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  # FILE first, so that its own includes are still checked; then every header.
  set(source ${WORK_DIR}/every_header_instantiated.cpp)
  file(WRITE ${source} "#include \"${INSTANTIATE}\"\n")
  foreach(header ${headers})
    file(APPEND ${source} "#include <${header}>\n")
  endforeach()
  execute_process(COMMAND ${compiler} -std=c++20 -Wall -Wextra -Wpedantic -Werror -I${INCLUDE_DIR} ${flags}
                          -c ${source} -o ${WORK_DIR}/instantiated.o
                  RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT failed EQUAL 0)
    message(FATAL_ERROR "the public headers do not compile, or their templates do not instantiate, "
                        "with ${CXX} (every header and ${INSTANTIATE}):\n${out}${err}")
  endif()
  list(LENGTH headers count)
  message(STATUS "${count} public headers compile and their templates instantiate with ${compiler}")
  return()
endif()

if(DEFINED PART)
  if(NOT PART MATCHES "^([1-9][0-9]*)/([1-9][0-9]*)$" OR CMAKE_MATCH_1 GREATER CMAKE_MATCH_2)
    message(FATAL_ERROR "public_headers_test.cmake: -DPART=${PART}: expected I/N with 1 <= I <= N, as 2/3")
  endif()
  set(share ${CMAKE_MATCH_1})
  set(shares ${CMAKE_MATCH_2})
  set(index 0)
  set(mine "")
  foreach(header ${headers})
    math(EXPR index "${index} + 1")
    math(EXPR turn "(${index} - 1) % ${shares} + 1")
    if(turn EQUAL share)
      list(APPEND mine ${header})
    endif()
  endforeach()
  set(headers ${mine})
  set(PART_NOTE " (share ${PART})")
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
message(STATUS "${count} public headers${PART_NOTE} compile on their own with ${compiler}")
