# The consumer tests (CTest: consumer_find_package, consumer_add_subdirectory,
# consumer_fetchcontent). Builds and runs test/consumer, a program with its own
# -Wall -Wextra -Wpedantic -Werror and no C++ standard, getting hookbus the way
# MODE names, with the README's own ```cmake block for it (the one after
# `<!-- cmake: consumer MODE -->`):
#   find_package      install BUILD_DIR into a scratch prefix, check what was
#                     installed (hookctl and its completion run from there,
#                     hookctl speaking with the prefix's own tts plugin), and
#                     find the package in that prefix alone;
#   add_subdirectory  SOURCE_DIR as the consumer's third_party/hookbus;
#   fetchcontent      the same tree through FetchContent's SOURCE_DIR.
# Either way the consumer's own install must hold only its own program. As a
# subproject, the consumer's default target (ALL) builds hookbus's library
# alone (no voice plugins), with no -Werror on hookbus's code, and the library
# looks for its plugins in the build tree.
#
#   cmake -DMODE=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DBUILD_TYPE=...
#         -DCXX_COMPILER=... [-DLAUNCHER=ccache] [-DCXX_FLAGS=...] [-DLINKER_FLAGS=...]
#         [-DBUILD_DIR=... (find_package)] -P consumer_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required MODE SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "consumer_test.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT MODE MATCHES "^(find_package|add_subdirectory|fetchcontent)$")
  message(FATAL_ERROR "consumer_test.cmake: MODE must be find_package, add_subdirectory or fetchcontent, not '${MODE}'")
endif()

set(consumer_source ${WORK_DIR}/source)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)

# Each regular expression after `manifest` matches a line of that install manifest.
function(expect_installed manifest)
  file(STRINGS ${manifest} installed)
  foreach(pattern ${ARGN})
    set(hits ${installed})
    list(FILTER hits INCLUDE REGEX "${pattern}")
    if(NOT hits)
      string(REPLACE ";" "\n  " listing "${installed}")
      message(FATAL_ERROR "nothing installed matches ${pattern}; installed:\n  ${listing}")
    endif()
  endforeach()
endfunction()

# The README's block for this mode becomes the consumer's hookbus.cmake.
file(READ ${SOURCE_DIR}/README.md readme)
set(marker "<!-- cmake: consumer ${MODE} -->\n```cmake\n")
string(FIND "${readme}" "${marker}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md has no ```cmake block right after <!-- cmake: consumer ${MODE} -->")
endif()
string(LENGTH "${marker}" marker_length)
math(EXPR at "${at} + ${marker_length}")
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} block)
file(COPY ${SOURCE_DIR}/test/consumer/CMakeLists.txt ${SOURCE_DIR}/test/consumer/main.cpp DESTINATION ${consumer_source})
file(WRITE ${consumer_source}/hookbus.cmake "${block}")

set(configure_args -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

if(MODE STREQUAL "find_package")
  if(NOT DEFINED BUILD_DIR)
    message(FATAL_ERROR "consumer_test.cmake: find_package needs -DBUILD_DIR=... (the build to install)")
  endif()
  set(prefix ${WORK_DIR}/prefix)
  run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
  expect_installed(${BUILD_DIR}/install_manifest.txt
    "^${prefix}/include/hookbus/hookbus\\.hpp$" "^${prefix}/lib[^/]*/libhookbus\\.(a|so)$"
    "^${prefix}/lib[^/]*/cmake/hookbus/hookbusConfig\\.cmake$" "^${prefix}/lib[^/]*/cmake/hookbus/hookbusPlugins\\.cmake$"
    "^${prefix}/bin/hookctl$" "^${prefix}/share/bash-completion/completions/hookctl$")
  # The installed completion, asked to complete `hookctl sch`, runs the installed hookctl.
  run_step("installed bash completion" /usr/bin/env PATH=${prefix}/bin:$ENV{PATH} bash -c
    "source '${prefix}/share/bash-completion/completions/hookctl' && COMP_LINE='hookctl sch' COMP_POINT=11 _hookctl && echo \"\${COMPREPLY[@]}\"")
  if(NOT step_output STREQUAL "schema\n")
    message(FATAL_ERROR "the installed completion of 'hookctl sch' gave '${step_output}', not 'schema'")
  endif()
  # The installed hookctl enables the installed `tts` (when this build made it),
  # which it finds under its own prefix: not the prefix the build was
  # configured with, and no HOOKBUS_BUILTIN_PLUGIN_DIR.
  file(STRINGS ${BUILD_DIR}/install_manifest.txt installed_tts REGEX "/hookbus/plugins/tts\\.so$")
  if(installed_tts)
    set(home ${WORK_DIR}/home)
    file(WRITE ${home}/config/hookbus/config.json "{\"builtins\": {\"tts\": {}}}\n")
    file(MAKE_DIRECTORY ${home}/project)
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=HOOKBUS_BUILTIN_PLUGIN_DIR HOME=${home}
                      XDG_CONFIG_HOME=${home}/config XDG_STATE_HOME=${home}/state XDG_CACHE_HOME=${home}/cache
                      ${prefix}/bin/hookctl emit message:send "{\"response_text\": \"hello\", \"is_voice\": true}"
                    WORKING_DIRECTORY ${home}/project RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
    if(NOT result EQUAL 0 OR NOT output MATCHES "audio/wav")
      message(FATAL_ERROR "the installed hookctl did not speak with the installed tts (${result}):\n${output}\n${errors}")
    endif()
  endif()
  list(APPEND configure_args -DCMAKE_PREFIX_PATH=${prefix})
  # Where hookbus was configured to install (issue 12 makes the lookup follow the prefix).
  set(plugin_directory_pattern "/hookbus/plugins$")
  set(plugin_directory "(a path ending in /hookbus/plugins)")
else()
  file(MAKE_DIRECTORY ${consumer_source}/third_party)
  file(CREATE_LINK ${SOURCE_DIR} ${consumer_source}/third_party/hookbus SYMBOLIC)
  # plugins/ of hookbus's build directory inside the consumer's.
  if(MODE STREQUAL "add_subdirectory")
    set(plugin_directory ${consumer_build}/third_party/hookbus/plugins)
  else()
    set(plugin_directory ${consumer_build}/_deps/hookbus-build/plugins)
  endif()
  set(plugin_directory_pattern "")
endif()

run_step("consumer configure" ${CMAKE_COMMAND} -S ${consumer_source} -B ${consumer_build} ${configure_args})
if(MODE STREQUAL "find_package")
  # The package must come from the scratch prefix, not from the source or build tree.
  file(STRINGS ${consumer_build}/CMakeCache.txt hookbus_dir REGEX "^hookbus_DIR:")
  if(NOT hookbus_dir MATCHES "=${prefix}/")
    message(FATAL_ERROR "consumer found hookbus outside the install prefix: ${hookbus_dir}")
  endif()
endif()

# The consumer's default target, as its own build runs it.
run_step("consumer build" ${CMAKE_COMMAND} --build ${consumer_build})
if(NOT MODE STREQUAL "find_package")
  # As a subproject: no voice plugin, nor what only they use (their own packages, their own build time)...
  file(GLOB_RECURSE built_plugins ${consumer_build}/*.so ${consumer_build}/*hookbus_voice*)
  if(built_plugins)
    message(FATAL_ERROR "the consumer's default target built hookbus's voice plugins: ${built_plugins}")
  endif()
  # ...and no -Werror but the consumer's own: hookbus's warnings under a newer compiler must not stop it.
  file(READ ${consumer_build}/compile_commands.json compile_commands)
  string(JSON count LENGTH "${compile_commands}")
  math(EXPR last "${count} - 1")
  foreach(index RANGE ${last})
    string(JSON file GET "${compile_commands}" ${index} file)
    string(JSON command GET "${compile_commands}" ${index} command)
    if(NOT file MATCHES "/main\\.cpp$" AND command MATCHES "-Werror")
      message(FATAL_ERROR "hookbus's ${file} compiles with -Werror in the consumer's build:\n${command}")
    endif()
  endforeach()
endif()
run_step("consumer run" /usr/bin/env -u HOOKBUS_BUILTIN_PLUGIN_DIR ${consumer_build}/my_engine)
set(expected "{\"type\":\"tool_call\",\"context\":{\"session_id\":\"\",\"cwd\":\"\",\"agent_id\":\"\",\"agent_type\":\"\",\"invoked_by\":\"main\",\"transcript_path\":\"\",\"permission_mode\":\"\",\"recipe_name\":\"\",\"workspace\":\"\",\"turn_id\":\"\",\"model\":\"\"},\"tool_call_id\":\"c1\",\"tool_name\":\"bash\",\"input\":{\"command\":\"ls\"}}\ntool_call{tool_call_id=\"c1\", tool_name=\"bash\", input={\"command\":\"ls\"}}\ndenied by guard: no\n")
string(FIND "${step_output}" "built-in plugins in " plugins_at)
if(plugins_at EQUAL -1)
  message(FATAL_ERROR "consumer printed:\n${step_output}\nexpected:\n${expected}built-in plugins in ...")
endif()
string(SUBSTRING "${step_output}" 0 ${plugins_at} printed)
string(SUBSTRING "${step_output}" ${plugins_at} -1 plugin_line)
string(REGEX REPLACE "^built-in plugins in ([^\n]*)\n$" "\\1" printed_plugin_directory "${plugin_line}")
if(plugin_directory_pattern)
  string(REGEX MATCH "${plugin_directory_pattern}" plugin_directory_right "${printed_plugin_directory}")
else()
  string(COMPARE EQUAL "${printed_plugin_directory}" "${plugin_directory}" plugin_directory_right)
endif()
if(NOT printed STREQUAL expected OR NOT plugin_directory_right)
  message(FATAL_ERROR "consumer printed:\n${step_output}\nexpected:\n${expected}built-in plugins in ${plugin_directory}")
endif()
set(consumer_output "${step_output}")

run_step("consumer install" ${CMAKE_COMMAND} --install ${consumer_build} --prefix ${WORK_DIR}/consumer_prefix)
file(STRINGS ${consumer_build}/install_manifest.txt consumer_installed)
if(NOT consumer_installed STREQUAL "${WORK_DIR}/consumer_prefix/bin/my_engine")
  string(REPLACE ";" "\n  " listing "${consumer_installed}")
  message(FATAL_ERROR "the consumer's install holds more than its program:\n  ${listing}")
endif()
message(STATUS "hookbus through ${MODE} works:\n${consumer_output}")
