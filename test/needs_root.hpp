#pragma once
// Tests of what another user's files do need root, to give a file away
// (chown to nobody). CI runs as root, so they run there. Anywhere else they
// are skipped loudly: a line on stderr says which test did not run and why.
// With HOOKBUS_REQUIRE_ROOT_TESTS set (tools/test sets it under CI), a run
// that is not root fails them instead, so they never skip silently in CI.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace hookbus::testing {

// The user root gives files to in these tests: nobody.
inline constexpr uid_t another_user = 65534;

// Whether the test may go on; when not, it has been skipped or failed.
inline bool running_as_root() {
  if (::geteuid() == 0) return true;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  if (std::getenv("HOOKBUS_REQUIRE_ROOT_TESTS") != nullptr) {
    ADD_FAILURE() << "needs root to give a file to another user, and HOOKBUS_REQUIRE_ROOT_TESTS is set";
    return false;
  }
  std::fprintf(stderr, "*** NOT RUN: %s.%s needs root to give a file to another user; run the tests as root (CI does)\n",
               test->test_suite_name(), test->name());
  return false;
}

// Tests that run hookctl or an engine as a program of its own isolate its
// managed layer with HOOKBUS_MANAGED_DIR, which hookbus honours only where
// nothing is at /etc/hookbus (docs/security.md, "The managed directory"), so
// that no environment variable can drop an administrator's settings. On a
// machine with /etc/hookbus they cannot be isolated: rather than read the
// administrator's settings, they are skipped loudly as above (failed under
// HOOKBUS_REQUIRE_ROOT_TESTS). Whether the test may go on.
inline bool managed_directory_isolated() {
  struct stat st {};
  if (::lstat("/etc/hookbus", &st) != 0) return true;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  if (std::getenv("HOOKBUS_REQUIRE_ROOT_TESTS") != nullptr) {
    ADD_FAILURE() << "/etc/hookbus exists, so HOOKBUS_MANAGED_DIR cannot isolate the managed layer of the programs "
                     "this test runs; run the tests where it does not (a container)";
    return false;
  }
  std::fprintf(stderr, "*** NOT RUN: %s.%s: /etc/hookbus exists, so HOOKBUS_MANAGED_DIR cannot isolate the managed "
               "layer of the programs it runs; run the tests where it does not (a container)\n",
               test->test_suite_name(), test->name());
  return false;
}

}  // namespace hookbus::testing

// The first statement of a test (or fixture SetUp) that runs hookctl or an engine as a program.
#define HOOKBUS_NEEDS_ISOLATED_MANAGED_DIR()                                                                  \
  do {                                                                                                        \
    if (!::hookbus::testing::managed_directory_isolated()) GTEST_SKIP() << "/etc/hookbus exists";             \
  } while (false)

// The first statement of a test that needs root.
#define HOOKBUS_NEEDS_ROOT()                                                          \
  do {                                                                                \
    if (!::hookbus::testing::running_as_root()) GTEST_SKIP() << "needs root (chown)"; \
  } while (false)
