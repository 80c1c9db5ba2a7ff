# The supervisor program of external runs (supervisor_main.cpp): built as a
# static executable and embedded in the library (supervisor_image.cpp.in),
# which executes it from a sealed memfd. Static, it starts without the dynamic
# loader (faster, and deaf to LD_* variables in the program's environment).
# Never sanitized: the sanitizer runtimes do not link statically, and it runs
# in a process of its own, outside the sanitized host.
add_executable(hookbus_supervisor process/supervisor_main.cpp)
target_include_directories(hookbus_supervisor PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(hookbus_supervisor PRIVATE hookbus_warnings)
target_compile_options(hookbus_supervisor PRIVATE -fno-sanitize=all)
target_link_options(hookbus_supervisor PRIVATE -static -fno-sanitize=all)
set_target_properties(hookbus_supervisor PROPERTIES
  OUTPUT_NAME hookbus-supervisor
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/process)

set(_supervisor_image ${CMAKE_CURRENT_BINARY_DIR}/process/supervisor_image.cpp)
add_custom_command(OUTPUT ${_supervisor_image}
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:hookbus_supervisor>
          -DTEMPLATE=${CMAKE_CURRENT_SOURCE_DIR}/process/supervisor_image.cpp.in
          -DOUTPUT=${_supervisor_image}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/process/embed_supervisor.cmake
  DEPENDS hookbus_supervisor
          ${CMAKE_CURRENT_SOURCE_DIR}/process/supervisor_image.cpp.in
          ${CMAKE_CURRENT_SOURCE_DIR}/process/embed_supervisor.cmake
  COMMENT "Embedding the supervisor program in the library")
target_sources(hookbus PRIVATE ${_supervisor_image})
