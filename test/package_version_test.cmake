# The installed package's version (CTest package_version): hookbus installed
# into PREFIX (the fixture install_for_plugins) says it is VERSION, this
# build's project version, in both places a user reads it:
#   - the CMake package's version file (cmake/install.cmake), as
#     find_package(hookbus X.Y) asks it: VERSION itself and its own minor
#     version are accepted; the next minor version is not, nor, before 1.0,
#     the one before (a minor version may break the API: CHANGELOG.md);
#   - the installed hookctl --version, which prints hookbus::version(), the
#     run-time version of the library it was linked with.
#
#   cmake -DPREFIX=... -DVERSION=X.Y.Z -P package_version_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required PREFIX VERSION)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "package_version_test.cmake: -D${required}=... is required")
  endif()
endforeach()

file(GLOB version_file ${PREFIX}/lib*/cmake/hookbus/hookbusConfigVersion.cmake)
if(NOT version_file)
  message(FATAL_ERROR "no hookbusConfigVersion.cmake installed under ${PREFIX}/lib*/cmake/hookbus")
endif()

# What the version file answers to find_package(hookbus REQUESTED): sets
# `compatible` and `exact` in the caller, as find_package reads them.
function(ask_version_file requested)
  string(REPLACE "." ";" parts "${requested}")
  list(LENGTH parts count)
  list(APPEND parts 0 0 0)
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
  set(PACKAGE_FIND_VERSION "${requested}")
  set(PACKAGE_FIND_VERSION_COUNT ${count})
  set(PACKAGE_FIND_NAME hookbus)
  unset(PACKAGE_VERSION_COMPATIBLE)
  unset(PACKAGE_VERSION_EXACT)
  include(${version_file})
  if(NOT PACKAGE_VERSION STREQUAL VERSION)
    message(FATAL_ERROR "the installed package says it is ${PACKAGE_VERSION}, the build is ${VERSION}")
  endif()
  set(compatible "${PACKAGE_VERSION_COMPATIBLE}" PARENT_SCOPE)
  set(exact "${PACKAGE_VERSION_EXACT}" PARENT_SCOPE)
endfunction()

function(expect requested want_compatible)
  ask_version_file(${requested})
  if(want_compatible AND NOT compatible)
    message(FATAL_ERROR "find_package(hookbus ${requested}) does not accept the installed ${VERSION}")
  elseif(NOT want_compatible AND compatible)
    message(FATAL_ERROR "find_package(hookbus ${requested}) accepts the installed ${VERSION}, but must not")
  endif()
  message(STATUS "find_package(hookbus ${requested}): ${compatible}")
  set(exact "${exact}" PARENT_SCOPE)
endfunction()

string(REGEX MATCH "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$" matched "${VERSION}")
if(NOT matched)
  message(FATAL_ERROR "VERSION must be MAJOR.MINOR.PATCH, not '${VERSION}'")
endif()
set(major ${CMAKE_MATCH_1})
set(minor ${CMAKE_MATCH_2})
math(EXPR next_minor "${minor} + 1")

expect(${VERSION} TRUE)
if(NOT exact)
  message(FATAL_ERROR "find_package(hookbus ${VERSION}) does not find the installed ${VERSION} exact")
endif()
expect(${major}.${minor} TRUE)
expect(${major}.${next_minor} FALSE)
if(major EQUAL 0 AND minor GREATER 0)
  math(EXPR previous_minor "${minor} - 1")
  expect(0.${previous_minor} FALSE)
endif()

# The run-time version, through the installed hookctl.
if(EXISTS ${PREFIX}/bin/hookctl)
  execute_process(COMMAND ${PREFIX}/bin/hookctl --version RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE errors)
  if(NOT result EQUAL 0 OR NOT output STREQUAL "hookctl ${VERSION}\n")
    message(FATAL_ERROR "the installed hookctl --version said '${output}' (${result}; ${errors}), "
                        "not 'hookctl ${VERSION}'")
  endif()
  message(STATUS "hookctl --version: ${output}")
endif()
