# hookbus's install rules (HOOKBUS_INSTALL), in the components the Debian
# packages are made of (cmake/package.cmake):
#   dev      the library and its headers, the CMake package (find_package(hookbus))
#            and the pkg-config file (hookbus.pc);
#   hookctl  hookctl with its bash completion and man page, when hookctl is built,
#            and the Python helper for hook authors;
#   voice    the voice built-ins' plugins (lib/voice/CMakeLists.txt).
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hookbus DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS hookbus hookbus_plugin_api EXPORT hookbusTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT hookbusTargets NAMESPACE hookbus:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hookbus COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hookbusConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hookbusConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hookbus)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hookbusConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hookbusConfig.cmake ${PROJECT_BINARY_DIR}/hookbusConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/hookbusPlugins.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hookbus COMPONENT dev)

# hookbus.pc, for pkg-config (Meson, Make): its prefix is where the file lies
# (${pcfiledir}), so the file stays right in any prefix the build is installed
# or packaged into. The libraries are what the static library needs at link
# time: Boost.JSON (Boost has no pkg-config file of its own; Boost's headers
# and library directory as this build found them), spdlog and fmt by theirs.
file(RELATIVE_PATH hookbus_pc_prefix /pc/${CMAKE_INSTALL_LIBDIR}/pkgconfig /pc)
string(REGEX REPLACE "/$" "" hookbus_pc_prefix "${hookbus_pc_prefix}")  # ../.. without the last slash
set(hookbus_pc_cflags "")
get_target_property(hookbus_boost_includes Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
foreach(dir ${hookbus_boost_includes})
  if(NOT dir STREQUAL "/usr/include")  # already searched; -isystem would break #include_next
    string(APPEND hookbus_pc_cflags " -isystem ${dir}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/hookbus.pc.in ${PROJECT_BINARY_DIR}/hookbus.pc.configured @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/hookbus.pc INPUT ${PROJECT_BINARY_DIR}/hookbus.pc.configured)
install(FILES ${PROJECT_BINARY_DIR}/hookbus.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

if(TARGET hookctl)
  install(TARGETS hookctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT hookctl)
  # A shared libhookbus (BUILD_SHARED_LIBS) is found next to the installed
  # hookctl's prefix, wherever the prefix is moved.
  get_target_property(hookbus_type hookbus TYPE)
  if(hookbus_type STREQUAL "SHARED_LIBRARY")
    set_target_properties(hookctl PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  endif()
  # Where bash-completion looks up a command's completion by its name.
  install(FILES ${PROJECT_BINARY_DIR}/tools/hookctl.bash
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hookctl COMPONENT hookctl)
  # man hookctl: the page made from hookctl's help (tools/CMakeLists.txt), compressed as Debian's are.
  install(FILES ${PROJECT_BINARY_DIR}/tools/hookctl.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT hookctl)
endif()
# The Python helper for hook authors (docs/external-hooks.md), importable with
# PYTHONPATH=<prefix>/share/hookbus/python; a library, so not executable.
install(FILES ${PROJECT_SOURCE_DIR}/examples/hooks/hookbus_hook.py DESTINATION ${CMAKE_INSTALL_DATADIR}/hookbus/python
  COMPONENT hookctl)

include(${CMAKE_CURRENT_LIST_DIR}/package.cmake)
