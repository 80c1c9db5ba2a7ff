#pragma once
// Tests of what another user's files do need root, to give a file away
// (chown to nobody). CI runs as root, so they run there. Anywhere else they
// are skipped loudly: a line on stderr says which test did not run and why.
// With HOOKBUS_REQUIRE_ROOT_TESTS set (tools/test sets it under CI), a run
// that is not root fails them instead, so they never skip silently in CI.

#include <gtest/gtest.h>

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

}  // namespace hookbus::testing

// The first statement of a test that needs root.
#define HOOKBUS_NEEDS_ROOT()                                                          \
  do {                                                                                \
    if (!::hookbus::testing::running_as_root()) GTEST_SKIP() << "needs root (chown)"; \
  } while (false)
