# CTest deb_packages: the Debian packages of BUILD_DIR (cmake/package.cmake),
# made with `cpack -G DEB` as README.md says, then unpacked into a scratch
# root with `dpkg -x` (nothing is installed on this machine):
#   - one package per component, named NAME_VERSION-1_ARCH.deb: libhookbus-dev,
#     hookctl and, when the build made them, hookbus-voice-plugins;
#   - their Depends: the versioned Boost 1.81 packages, never Debian's
#     unversioned libboost-*-dev (1.74, no Boost.Describe); hookctl's and the
#     plugins' shared libraries as dpkg-shlibdeps found them; stt's model;
#   - what each holds, in /usr: the headers, library, CMake package and
#     hookbus.pc; hookctl (which runs and says VERSION), its completion, its man
#     page and the Python helper (which imports); the plugins;
#   - test/consumer built with the README's find_package block against the
#     unpacked root alone, and run.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DVERSION=... -DPLUGINS=stt,tts (those packaged)
#         -DGENERATOR=... -DBUILD_TYPE=... -DCXX_COMPILER=... [-DLAUNCHER=...] -P deb_packages_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required BUILD_DIR SOURCE_DIR WORK_DIR VERSION GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "deb_packages_test.cmake: -D${required}=... is required")
  endif()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)
string(REPLACE "," ";" PLUGINS "${PLUGINS}")
file(REMOVE_RECURSE ${WORK_DIR})
set(root ${WORK_DIR}/root)

get_filename_component(cmake_bin ${CMAKE_COMMAND} DIRECTORY)
run_step("cpack" ${cmake_bin}/cpack -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR}/packages)
run_step("dpkg --print-architecture" dpkg --print-architecture)
string(STRIP "${step_output}" arch)

set(packages libhookbus-dev hookctl)
if(PLUGINS)
  list(APPEND packages hookbus-voice-plugins)
endif()
file(GLOB made RELATIVE ${WORK_DIR}/packages ${WORK_DIR}/packages/*.deb)
set(expected_files)
foreach(package ${packages})
  list(APPEND expected_files ${package}_${VERSION}-1_${arch}.deb)
endforeach()
list(SORT made)
list(SORT expected_files)
if(NOT made STREQUAL expected_files)
  message(FATAL_ERROR "cpack made ${made}; expected ${expected_files}")
endif()

# Each regular expression after `package` matches its Depends field.
function(expect_depends package)
  run_step("dpkg-deb -f ${package}" dpkg-deb -f ${WORK_DIR}/packages/${package}_${VERSION}-1_${arch}.deb Depends)
  string(STRIP "${step_output}" depends)
  foreach(pattern ${ARGN})
    if(NOT depends MATCHES "${pattern}")
      message(FATAL_ERROR "${package} Depends: ${depends}\ndoes not match ${pattern}")
    endif()
  endforeach()
  # Boost by its versioned names only: Debian's libboost-dev and libboost-json-dev are 1.74.
  if(depends MATCHES "libboost-dev|libboost-[a-z-]+-dev")
    message(FATAL_ERROR "${package} depends on an unversioned Boost package: ${depends}")
  endif()
endfunction()
expect_depends(libhookbus-dev "libboost1\\.81-dev" "libboost-json1\\.81-dev" "libspdlog-dev" "libfmt-dev")
expect_depends(hookctl "libboost-json1\\.81\\.0" "libspdlog1" "libfmt" "libc6" "libstdc\\+\\+6")
if("stt" IN_LIST PLUGINS)
  expect_depends(hookbus-voice-plugins "libpocketsphinx" "libsphinxbase" "pocketsphinx-en-us")
endif()
if("tts" IN_LIST PLUGINS)
  expect_depends(hookbus-voice-plugins "libespeak-ng")
endif()

foreach(package ${packages})
  run_step("dpkg -x ${package}" dpkg -x ${WORK_DIR}/packages/${package}_${VERSION}-1_${arch}.deb ${root})
endforeach()
set(expected_paths usr/include/hookbus/hookbus.hpp usr/lib*/libhookbus.a usr/lib*/cmake/hookbus/hookbusConfig.cmake
    usr/lib*/pkgconfig/hookbus.pc usr/bin/hookctl usr/share/bash-completion/completions/hookctl
    usr/share/man/man1/hookctl.1.gz usr/share/hookbus/python/hookbus_hook.py)
foreach(plugin ${PLUGINS})
  list(APPEND expected_paths usr/lib*/hookbus/plugins/${plugin}.so)
endforeach()
foreach(path ${expected_paths})
  file(GLOB found ${root}/${path})
  if(NOT found)
    message(FATAL_ERROR "the packages hold no /${path}")
  endif()
endforeach()

run_step("the packaged hookctl" ${root}/usr/bin/hookctl --version)
if(NOT step_output STREQUAL "hookctl ${VERSION}\n")
  message(FATAL_ERROR "the packaged hookctl --version printed '${step_output}', not 'hookctl ${VERSION}'")
endif()
# -B: no __pycache__ written beside it (a package's files are not the user's to change).
run_step("import the packaged helper" ${CMAKE_COMMAND} -E env PYTHONPATH=${root}/usr/share/hookbus/python
         python3 -B -c "import hookbus_hook\nprint(hookbus_hook.refuse('no'))")  # no ';': it would split the argument
if(NOT step_output STREQUAL "{'blocked': True, 'reason': 'no'}\n")
  message(FATAL_ERROR "the packaged hookbus_hook.refuse('no') gave '${step_output}'")
endif()

# The consumer, with the README's find_package block, against the root alone.
set(consumer_source ${WORK_DIR}/consumer)
file(COPY ${SOURCE_DIR}/test/consumer/CMakeLists.txt ${SOURCE_DIR}/test/consumer/main.cpp DESTINATION ${consumer_source})
file(READ ${SOURCE_DIR}/README.md readme)
string(REGEX MATCH "<!-- cmake: consumer find_package -->\n```cmake\n([^`]*)```" block "${readme}")
if(NOT block)
  message(FATAL_ERROR "README.md has no ```cmake block right after <!-- cmake: consumer find_package -->")
endif()
file(WRITE ${consumer_source}/hookbus.cmake "${CMAKE_MATCH_1}")
set(configure_args -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${root}/usr)
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run_step("consumer configure" ${CMAKE_COMMAND} -S ${consumer_source} -B ${WORK_DIR}/consumer_build ${configure_args})
file(STRINGS ${WORK_DIR}/consumer_build/CMakeCache.txt hookbus_dir REGEX "^hookbus_DIR:")
if(NOT hookbus_dir MATCHES "=${root}/usr/")
  message(FATAL_ERROR "the consumer found hookbus outside the unpacked packages: ${hookbus_dir}")
endif()
run_step("consumer build" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer_build)
run_step("consumer run" ${WORK_DIR}/consumer_build/my_engine)
if(NOT step_output MATCHES "^{\"type\":\"tool_call\".*\ndenied by guard: no\n")
  message(FATAL_ERROR "the consumer of the packages printed:\n${step_output}")
endif()
message(STATUS "the packages (${made}) install, and a consumer builds against them:\n${step_output}")
