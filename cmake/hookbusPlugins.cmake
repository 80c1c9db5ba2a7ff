# Plugins (docs/plugins.md): building one, and letting an engine load them.
# Included by hookbus's own build and by the installed package's config.

# hookbus_add_plugin(NAME SOURCES...): a plugin library NAME.so. It compiles
# against hookbus's headers and links no copy of hookbus: the engine that loads
# it provides hookbus (see hookbus_enable_plugins). Its symbols are hidden
# except the entry point, so nothing in it clashes with the engine's, and the
# library can be unloaded again.
function(hookbus_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE hookbus::plugin_api)
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# hookbus_enable_plugins(TARGET): the engine executable TARGET exports the
# whole of hookbus (every object of the static library, visible to dlopen'ed
# libraries), so that any plugin's references resolve to the engine's one copy.
# Built against an installed package, the engine also records where that
# package keeps hookbus's own plugins (stt.so, tts.so), for
# hookbus::builtin_plugin_directories().
function(hookbus_enable_plugins target)
  set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
  get_target_property(type hookbus::hookbus TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    target_link_options(${target} PRIVATE
      "LINKER:--whole-archive" "$<TARGET_FILE:hookbus::hookbus>" "LINKER:--no-whole-archive")
  endif()
  get_target_property(plugin_dir hookbus::hookbus HOOKBUS_BUILTIN_PLUGIN_DIR)
  if(plugin_dir)
    set(source ${CMAKE_CURRENT_BINARY_DIR}/${target}_hookbus_plugin_directory.cpp)
    file(CONFIGURE OUTPUT ${source} @ONLY CONTENT [[
// Made by hookbus_enable_plugins(): where the hookbus package this engine was
// built against keeps hookbus's own plugins.
extern "C" {
extern __attribute__((visibility("default"))) const char hookbus_package_plugin_directory[];
__attribute__((used)) const char hookbus_package_plugin_directory[] = R"hookbus(@plugin_dir@)hookbus";
}
]])
    target_sources(${target} PRIVATE ${source})
  endif()
endfunction()
