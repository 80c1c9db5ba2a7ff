# hookbus's install rules (HOOKBUS_INSTALL): the library and its headers, the
# CMake package (find_package(hookbus)), and hookctl with its bash completion
# when hookctl is built.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hookbus DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hookbus hookbus_plugin_api EXPORT hookbusTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT hookbusTargets NAMESPACE hookbus:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hookbus)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hookbusConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hookbusConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hookbus)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hookbusConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hookbusConfig.cmake ${PROJECT_BINARY_DIR}/hookbusConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/hookbusPlugins.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hookbus)

if(TARGET hookctl)
  install(TARGETS hookctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # A shared libhookbus (BUILD_SHARED_LIBS) is found next to the installed
  # hookctl's prefix, wherever the prefix is moved.
  get_target_property(hookbus_type hookbus TYPE)
  if(hookbus_type STREQUAL "SHARED_LIBRARY")
    set_target_properties(hookctl PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  endif()
  # Where bash-completion looks up a command's completion by its name.
  install(FILES ${PROJECT_BINARY_DIR}/tools/hookctl.bash
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hookctl)
endif()
