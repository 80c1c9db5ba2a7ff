# Debian packages of what cmake/install.cmake installs: `cpack -G DEB` in the
# build directory makes one .deb per component (README.md, "Install"):
#   libhookbus-dev         the static library, headers, CMake package and hookbus.pc;
#                          it depends on the Boost 1.81, spdlog and fmt headers an
#                          engine compiles against (Debian's unversioned
#                          libboost-dev is 1.74, which has no Boost.Describe);
#   hookctl                hookctl, its bash completion and man page, and the Python
#                          helper for hook authors;
#   hookbus-voice-plugins  stt.so and tts.so, with PocketSphinx's US English model.
# Shared-library dependencies (hookctl's Boost.JSON, spdlog and fmt; the voice
# plugins' PocketSphinx and eSpeak NG) are what dpkg-shlibdeps finds. The
# library is static (the build's default), so there is no runtime package.
# Packages install under /usr. Configure with -DCMAKE_INSTALL_PREFIX=/usr for
# packages: the library also looks for the voice plugins under the prefix it
# was configured with (docs/voice.md), which an engine built with pkg-config
# relies on.
set(CPACK_PACKAGE_NAME hookbus)
set(CPACK_PACKAGE_VENDOR hookbus)
set(CPACK_PACKAGE_CONTACT "hookbus developers" CACHE STRING "The packages' Maintainer field")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_GENERATOR DEB)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL dev)
if(TARGET hookctl)
  list(APPEND CPACK_COMPONENTS_ALL hookctl)
endif()
if(HOOKBUS_BUILD_VOICE_PLUGINS AND (TARGET hookbus_stt OR TARGET hookbus_tts))
  list(APPEND CPACK_COMPONENTS_ALL voice)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # NAME_VERSION-RELEASE_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libhookbus-dev)
set(CPACK_DEBIAN_DEV_DESCRIPTION "${PROJECT_DESCRIPTION}: library and headers
 hookbus's static library, its C++20 headers, its CMake package
 (find_package(hookbus)) and its pkg-config file (hookbus.pc).")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libboost1.81-dev, libboost-json1.81-dev, libspdlog-dev, libfmt-dev, libtomlplusplus-dev, libssl-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "hookctl, hookbus-voice-plugins, pkg-config")

set(CPACK_DEBIAN_HOOKCTL_PACKAGE_NAME hookctl)
set(CPACK_DEBIAN_HOOKCTL_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_HOOKCTL_DESCRIPTION "hookbus's command-line tool
 hookctl shows hookbus's event catalogue and drives a project's hooks: list,
 emit, run-hook, trust, config, replay, trace view and trace summary. With
 its bash completion, its man page, and hookbus_hook.py, the Python helper for
 hook authors (PYTHONPATH=/usr/share/hookbus/python).")
set(CPACK_DEBIAN_HOOKCTL_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_HOOKCTL_PACKAGE_SUGGESTS "python3")

set(CPACK_DEBIAN_VOICE_PACKAGE_NAME hookbus-voice-plugins)
set(CPACK_DEBIAN_VOICE_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_VOICE_DESCRIPTION "hookbus's voice built-ins
 The plugins of the stt (PocketSphinx) and tts (eSpeak NG) built-ins, loaded
 by an engine whose config enables them (docs/voice.md).")
set(CPACK_DEBIAN_VOICE_PACKAGE_SHLIBDEPS ON)
if(TARGET hookbus_stt)
  set(CPACK_DEBIAN_VOICE_PACKAGE_DEPENDS "pocketsphinx-en-us")  # stt's model: data, which dpkg-shlibdeps cannot see
endif()

include(CPack)
