// The library uses_library.cpp loads. Built twice: as the project was
// trusted, and with HOOKBUS_TEST_HELPER_CHANGED as an attacker changes it
// afterwards: that one, once loaded, writes the file $HOOKBUS_TEST_HELPER_RAN
// names (it ran inside the engine), and gives another reason.
#include <cstdio>
#include <cstdlib>

#ifdef HOOKBUS_TEST_HELPER_CHANGED
__attribute__((constructor)) static void mark_that_it_ran() {
  if (const char* mark = std::getenv("HOOKBUS_TEST_HELPER_RAN"))
    if (std::FILE* file = std::fopen(mark, "w")) std::fclose(file);
}
#endif

extern "C" __attribute__((visibility("default"))) const char* plugin_helper_reason() {
#ifdef HOOKBUS_TEST_HELPER_CHANGED
  return "the helper changed after trust";
#else
  return "the helper as trusted";
#endif
}
