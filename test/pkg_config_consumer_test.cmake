# CTest consumer_pkg_config: a program built with pkg-config alone against
# hookbus installed into PREFIX (the fixture install_for_plugins), as a Meson
# or Make user builds it: test/consumer/main.cpp compiled with
#   CXX -std=c++20 -Wall -Wextra -Wpedantic -Werror main.cpp $(pkg-config --cflags --libs hookbus)
# (PKG_CONFIG_PATH the prefix's lib*/pkgconfig), and run.
#
#   cmake -DPREFIX=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... [-DCXX_FLAGS=...] -P pkg_config_consumer_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required PREFIX SOURCE_DIR WORK_DIR CXX)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "pkg_config_consumer_test.cmake: -D${required}=... is required")
  endif()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

file(GLOB pc_file ${PREFIX}/lib*/pkgconfig/hookbus.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no hookbus.pc installed under ${PREFIX}/lib*/pkgconfig")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
run_step("pkg-config" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} pkg-config --cflags --libs hookbus)
string(STRIP "${step_output}" flags)
# Its directories are the prefix's, wherever the prefix is: ${pcfiledir} made them.
if(NOT flags MATCHES "-I${PREFIX}/[^ ]*include" OR NOT flags MATCHES "-L${PREFIX}/lib[^ ]* -lhookbus")
  message(FATAL_ERROR "pkg-config's flags do not name the prefix ${PREFIX}: ${flags}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
run_step("compile" ${CXX} -std=c++20 -Wall -Wextra -Wpedantic -Werror ${cxx_flags}
         ${SOURCE_DIR}/test/consumer/main.cpp ${flags} -o ${WORK_DIR}/my_engine)
run_step("run" ${WORK_DIR}/my_engine)
set(expected "{\"type\":\"tool_call\",\"context\":{\"session_id\":\"\",\"cwd\":\"\",\"agent_id\":\"\",\"agent_type\":\"\",\"invoked_by\":\"main\",\"transcript_path\":\"\",\"permission_mode\":\"\",\"recipe_name\":\"\",\"workspace\":\"\",\"turn_id\":\"\",\"model\":\"\"},\"tool_call_id\":\"c1\",\"tool_name\":\"bash\",\"input\":{\"command\":\"ls\"}}\ntool_call{tool_call_id=\"c1\", tool_name=\"bash\", input={\"command\":\"ls\"}}\ndenied by guard: no\n")
string(FIND "${step_output}" "${expected}" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "the pkg-config consumer printed:\n${step_output}\nexpected it to start with:\n${expected}")
endif()
message(STATUS "built with pkg-config (${flags}) and ran:\n${step_output}")
