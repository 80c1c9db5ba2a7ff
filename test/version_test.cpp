// hookbus::version() is the CMake project's version (HOOKBUS_TEST_PROJECT_VERSION,
// given to this file by test/CMakeLists.txt from the same project()), and it
// orders as version numbers do.
#include <hookbus/version.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using hookbus::Version;

TEST(Version, IsTheCMakeProjectsVersion) {
  const Version running = hookbus::version();
  EXPECT_EQ(running.string, HOOKBUS_TEST_PROJECT_VERSION);
  EXPECT_EQ(running.major, HOOKBUS_TEST_PROJECT_VERSION_MAJOR);
  EXPECT_EQ(running.minor, HOOKBUS_TEST_PROJECT_VERSION_MINOR);
  EXPECT_EQ(running.patch, HOOKBUS_TEST_PROJECT_VERSION_PATCH);
}

TEST(Version, ItsTextIsItsNumbers) {
  const Version running = hookbus::version();
  EXPECT_EQ(running.string, std::to_string(running.major) + "." + std::to_string(running.minor) + "." +
                                std::to_string(running.patch));
}

TEST(Version, OrdersByMajorThenMinorThenPatchIgnoringTheText) {
  EXPECT_LT((Version{.major = 0, .minor = 2, .patch = 9}), (Version{.major = 0, .minor = 3}));
  EXPECT_LT((Version{.major = 0, .minor = 9, .patch = 9}), (Version{.major = 1}));
  EXPECT_LT((Version{.major = 1, .minor = 2, .patch = 3}), (Version{.major = 1, .minor = 2, .patch = 4}));
  EXPECT_EQ((Version{.major = 0, .minor = 2, .patch = 0, .string = "0.2.0"}), (Version{.major = 0, .minor = 2}));
}

}  // namespace
