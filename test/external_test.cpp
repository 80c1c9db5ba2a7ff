// External hooks: discovery rules and the execution protocol, with real hook
// executables written into temporary directories (docs/external-hooks.md).
#include "needs_root.hpp"
#include "project_hooks_fixture.hpp"
#include "scoped_environment.hpp"

#include <hookbus/approvals.hpp>
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>

#include <boost/json/parse.hpp>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using namespace std::chrono_literals;
using testing::LogCapture;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

// Hang detection only: far above what any of these takes, far below the 30 s default.
constexpr auto kHangBound = 10s;

// A shell hook: answers `hook` with `events` (one per line) and runs `body` on `run`.
fs::path write_hook(const fs::path& file, const std::string& events, const std::string& body, mode_t mode = 0755) {
  return write_script(file, "if [ \"$1\" = hook ]; then printf '%s\\n' " + events + "; exit 0; fi\n" + body, mode);
}

// A Python hook: answers `hook` with `event`, and on `run` has `payload` (the
// parsed stdin) and runs `body`. Debian's own interpreter: a PATH shim (pyenv)
// can take seconds to start.
fs::path write_python_hook(const fs::path& file, const std::string& event, const std::string& body) {
  return write_file(file,
                    "#!/usr/bin/python3\n"
                    "import json, sys\n"
                    "if sys.argv[1] == 'hook':\n"
                    "    print('" + event + "')\n"
                    "    sys.exit(0)\n"
                    "payload = json.load(sys.stdin)\n" + body,
                    0755);
}

std::vector<std::string> names_of(const DiscoveryReport& report) {
  std::vector<std::string> names;
  for (const auto& hook : report.hooks) names.push_back(hook.name);
  return names;
}

// The skipped entry of that name; a test failure (and an empty entry) when there is none.
SkippedFile skipped(const DiscoveryReport& report, const std::string& name) {
  const auto found = std::find_if(report.skipped.begin(), report.skipped.end(),
                                  [&](const SkippedFile& s) { return s.name == name; });
  if (found != report.skipped.end()) return *found;
  ADD_FAILURE() << "'" << name << "' was not skipped";
  return {};
}

// ================================================================ discovery

// Every discovery and external-hook test also checks that its runs left no
// file descriptor and no child process behind (NothingLeftBehind).
class Discovery : public testing::NothingLeftBehind {
 protected:
  fs::path project_hooks() const { return project_.path() / ".hookbus" / "hooks"; }
  fs::path user_hooks() const { return user_.path() / "hookbus" / "hooks"; }
  DiscoveryReport discover(Duration query_timeout = default_query_timeout) const {
    HookDirectories dirs;
    dirs.add(project_hooks(), "project");
    dirs.add(user_hooks(), "user");
    return discover_hooks(dirs, {.query_timeout = query_timeout});
  }

  LogCapture log_;
  TempDir project_;
  TempDir user_;
};

TEST_F(Discovery, FindsAnExecutableHookWithItsEventPathAndSource) {
  write_hook(project_hooks() / "guard", "tool_call", "");
  const auto report = discover();
  ASSERT_EQ(report.hooks.size(), 1u);
  const DiscoveredHook& hook = report.hooks[0];
  EXPECT_EQ(hook.name, "guard");
  EXPECT_EQ(hook.path, project_hooks() / "guard");
  EXPECT_EQ(hook.source, "project");
  ASSERT_EQ(hook.events.size(), 1u);
  EXPECT_EQ(hook.events[0].index, event_index<ToolCallEvent>);
  EXPECT_EQ(hook.events[0].name, "tool_call");
}

TEST_F(Discovery, AHookMayAskForSeveralEventsByWireNameOrAlias) {
  write_hook(project_hooks() / "multi", "before_tool_call '' agent_end ' turn_end '", "");
  const auto report = discover();
  ASSERT_EQ(report.hooks.size(), 1u);
  EXPECT_THAT(report.hooks[0].events,
              ElementsAre(AllOf(Field(&RequestedEvent::index, event_index<ToolCallEvent>),
                                Field(&RequestedEvent::name, "before_tool_call")),
                          Field(&RequestedEvent::index, event_index<AgentEndEvent>),
                          Field(&RequestedEvent::index, event_index<TurnEndEvent>)));
}

TEST_F(Discovery, AMissingDirectoryIsNotAnError) {
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(report.skipped, IsEmpty());
  EXPECT_EQ(log_.text(), "");
}

TEST_F(Discovery, SubdirectoriesAreIgnored) {
  testing::make_directories(project_hooks() / "lib");
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_EQ(skipped(report, "lib").why, SkippedFile::Why::ignored);
}

TEST_F(Discovery, FilesWithoutTheExecuteBitAreIgnored) {
  write_hook(project_hooks() / "notes", "tool_call", "", 0644);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(skipped(report, "notes").reason, HasSubstr("not executable"));
}

TEST_F(Discovery, NamesEndingInDotDisableAreIgnored) {
  write_hook(project_hooks() / "guard.disable", "tool_call", "");
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(skipped(report, "guard.disable").reason, HasSubstr(".disable"));
}

TEST_F(Discovery, DotFilesAreIgnored) {
  write_hook(project_hooks() / ".hidden", "tool_call", "");
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_EQ(skipped(report, ".hidden").why, SkippedFile::Why::ignored);
}

TEST_F(Discovery, AHookInAHigherPrecedenceDirectoryShadowsOneOfTheSameName) {
  write_hook(project_hooks() / "guard", "tool_call", "");
  write_hook(user_hooks() / "guard", "agent_end", "");
  const auto report = discover();
  ASSERT_EQ(report.hooks.size(), 1u);
  EXPECT_EQ(report.hooks[0].source, "project");
  const SkippedFile shadowed = skipped(report, "guard");
  EXPECT_EQ(shadowed.why, SkippedFile::Why::shadowed);
  EXPECT_EQ(shadowed.path, user_hooks() / "guard");
  EXPECT_THAT(shadowed.reason, HasSubstr((project_hooks() / "guard").string()));
}

TEST_F(Discovery, HooksRunInPrecedenceOrderThenNameOrder) {
  write_hook(project_hooks() / "b", "tool_call", "");
  write_hook(project_hooks() / "a", "tool_call", "");
  write_hook(user_hooks() / "0-first-by-name-but-lower-precedence", "tool_call", "");
  EXPECT_THAT(names_of(discover()), ElementsAre("a", "b", "0-first-by-name-but-lower-precedence"));
}

TEST_F(Discovery, AFailingTypeQuerySkipsTheFileWithAWarningNamingIt) {
  write_script(project_hooks() / "broken", "echo 'no idea' >&2; exit 1\n");
  write_hook(project_hooks() / "good", "tool_call", "");
  const auto report = discover();
  EXPECT_THAT(names_of(report), ElementsAre("good"));
  const SkippedFile broken = skipped(report, "broken");
  EXPECT_EQ(broken.why, SkippedFile::Why::refused);
  EXPECT_THAT(broken.reason, AllOf(HasSubstr("exit code 1"), HasSubstr("no idea")));
  EXPECT_THAT(log_.text(), HasSubstr("'broken'"));
}

TEST_F(Discovery, AnUnknownEventNameSkipsTheFileWithAWarning) {
  write_hook(project_hooks() / "typo", "tool_cal", "");
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(skipped(report, "typo").reason, HasSubstr("'tool_cal'"));
  EXPECT_THAT(log_.text(), HasSubstr("'typo'"));
}

TEST_F(Discovery, AnEmptyTypeAnswerSkipsTheFile) {
  write_hook(project_hooks() / "silent", "''", "");
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(skipped(report, "silent").reason, HasSubstr("no event name"));
}

TEST_F(Discovery, AHangingTypeQueryTimesOut) {
  write_script(project_hooks() / "stuck", "sleep 30\n");
  const auto started = std::chrono::steady_clock::now();
  const auto report = discover(200ms);
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(skipped(report, "stuck").reason, HasSubstr("timed out"));
}

TEST_F(Discovery, AScriptWithoutAShebangIsRefusedWithAHint) {
  write_file(project_hooks() / "bare", "echo tool_call\n", 0755);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(skipped(report, "bare").reason, HasSubstr("'#!' line"));
}

TEST_F(Discovery, AWorldWritableHookFileIsRefused) {
  write_hook(project_hooks() / "open", "tool_call", "", 0757);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  const SkippedFile refused = skipped(report, "open");
  EXPECT_EQ(refused.why, SkippedFile::Why::refused);
  EXPECT_THAT(refused.reason, AllOf(HasSubstr("writable by group or others"), HasSubstr("chmod go-w")));
  EXPECT_THAT(log_.text(), HasSubstr("'open'"));
}

TEST_F(Discovery, AGroupWritableHookFileIsRefused) {
  write_hook(project_hooks() / "shared", "tool_call", "", 0775);
  EXPECT_EQ(skipped(discover(), "shared").why, SkippedFile::Why::refused);
}

TEST_F(Discovery, AWorldWritableHookDirectoryIsRefusedAsAWhole) {
  write_hook(project_hooks() / "guard", "tool_call", "");
  ::chmod(project_hooks().c_str(), 0777);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, project_hooks());
  EXPECT_EQ(report.skipped[0].why, SkippedFile::Why::refused);
  EXPECT_THAT(report.skipped[0].reason,
              AllOf(HasSubstr("the hook directory: '" + project_hooks().string() + "' is writable by group or others"),
                    HasSubstr("chmod go-w")));
  EXPECT_THAT(log_.text(), HasSubstr(project_hooks().string()));
}

TEST_F(Discovery, ADirectoryWritableByOthersAboveTheHookDirectoryRefusesIt) {
  write_hook(project_hooks() / "guard", "tool_call", "");
  ::chmod((project_.path() / ".hookbus").c_str(), 0777);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(report.skipped.at(0).reason,
              HasSubstr("the directory '" + (project_.path() / ".hookbus").string() + "' on its path is writable"));
}

// Issue 10, point 5: a symlinked hook was accepted when its target's directory
// was world-writable; only the target's mode was checked.
TEST_F(Discovery, ASymlinkedHookWhoseTargetDirectoryIsWritableByOthersIsRefused) {
  TempDir elsewhere;
  const fs::path open_dir = elsewhere.path() / "open";
  write_hook(open_dir / "guard", "tool_call", "");
  ::chmod(open_dir.c_str(), 0777);
  testing::make_directories(project_hooks());
  fs::create_symlink(open_dir / "guard", project_hooks() / "guard");
  const SkippedFile refused = skipped(discover(), "guard");
  EXPECT_EQ(refused.why, SkippedFile::Why::refused);
  EXPECT_THAT(refused.reason, HasSubstr("the directory '" + open_dir.string() + "' on its path is writable"));
}

TEST_F(Discovery, ASymlinkedHookWhoseTargetPassesTheChecksIsFollowed) {
  TempDir elsewhere;
  write_hook(elsewhere.path() / "hooks" / "real-guard", "tool_call", "");
  testing::make_directories(project_hooks());
  fs::create_symlink(elsewhere.path() / "hooks" / "real-guard", project_hooks() / "guard");
  const auto report = discover();
  ASSERT_THAT(names_of(report), ElementsAre("guard"));
  EXPECT_EQ(report.hooks[0].path, project_hooks() / "guard");
}

// Issue 10, point 5, for a chain: the link in the hook directory points at a
// second link that sits in a world-writable directory, where anyone can
// repoint it, although the final target is safe.
TEST_F(Discovery, ASymlinkChainThroughAWritableDirectoryIsRefused) {
  TempDir elsewhere;
  const fs::path open_dir = elsewhere.path() / "open";
  write_hook(elsewhere.path() / "safe" / "real-guard", "tool_call", "");
  testing::make_directories(open_dir);
  fs::create_symlink(elsewhere.path() / "safe" / "real-guard", open_dir / "link");
  ::chmod(open_dir.c_str(), 0777);
  testing::make_directories(project_hooks());
  fs::create_symlink(open_dir / "link", project_hooks() / "guard");
  const SkippedFile refused = skipped(discover(), "guard");
  EXPECT_EQ(refused.why, SkippedFile::Why::refused);
  EXPECT_THAT(refused.reason, HasSubstr("the directory '" + open_dir.string() + "' on its path is writable"));
}

TEST_F(Discovery, ASymlinkChainThroughSafeDirectoriesIsFollowed) {
  TempDir elsewhere;
  write_hook(elsewhere.path() / "safe" / "real-guard", "tool_call", "");
  testing::make_directories(elsewhere.path() / "links");
  fs::create_symlink("../safe/real-guard", elsewhere.path() / "links" / "relative");
  fs::create_symlink(elsewhere.path() / "links" / "relative", elsewhere.path() / "links" / "absolute");
  testing::make_directories(project_hooks());
  fs::create_symlink(elsewhere.path() / "links" / "absolute", project_hooks() / "guard");
  const auto report = discover();
  ASSERT_THAT(names_of(report), ElementsAre("guard"));
  EXPECT_EQ(report.hooks[0].path, project_hooks() / "guard");
}

TEST_F(Discovery, ASymlinkedHookDirectoryWhoseTargetIsSafeIsScanned) {
  TempDir elsewhere;
  write_hook(elsewhere.path() / "shared-hooks" / "guard", "tool_call", "");
  testing::make_directories(project_hooks().parent_path());
  fs::create_symlink(elsewhere.path() / "shared-hooks", project_hooks());
  EXPECT_THAT(names_of(discover()), ElementsAre("guard"));
}

// Not a missing directory: the link says hooks were meant to be there.
TEST_F(Discovery, AHookDirectoryThatIsADanglingSymlinkIsRefusedNamingItsTarget) {
  testing::make_directories(project_hooks().parent_path());
  fs::create_symlink(project_.path() / "gone", project_hooks());
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, project_hooks());
  EXPECT_EQ(report.skipped[0].why, SkippedFile::Why::refused);
  EXPECT_EQ(report.skipped[0].reason,
            "the hook directory is a symlink to '" + (project_.path() / "gone").string() + "', which does not exist");
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("refused"), HasSubstr(project_hooks().string())));
}

// The query runs in a scratch directory, a run in the event's: a relative
// hook directory names its hooks from where discovery was asked.
TEST_F(Discovery, ARelativeHookDirectoryGivesHooksAbsolutePathsThatRunFromElsewhere) {
  write_hook(project_hooks() / "guard", "tool_call", "");
  HookDirectories dirs;
  dirs.add(fs::path(".hookbus") / "hooks", "project");
  const fs::path before = fs::current_path();
  fs::current_path(project_.path());
  const auto report = discover_hooks(dirs);
  fs::current_path(before);
  ASSERT_THAT(names_of(report), ElementsAre("guard"));
  EXPECT_EQ(report.hooks[0].path, project_hooks() / "guard");
}

// Names under /proc mean another file in each process: /proc/self/cwd is the
// working directory of whoever opens it, and a hook runs in the event's (a
// package of a monorepo), not the engine's. Each link here names, in this
// process, a safe hook; none of them is what a hook process would run.
TEST_F(Discovery, AHookReachedThroughProcOrDevFdIsRefused) {
  TempDir elsewhere;
  const fs::path real = write_hook(elsewhere.path() / "guard", "tool_call", "");
  const int descriptor = ::open(real.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(descriptor, 0);
  testing::make_directories(project_hooks());
  const std::map<std::string, fs::path> links{
      {"via-cwd", fs::path("/proc/self/cwd") / fs::relative(real, fs::current_path())},
      {"via-root", fs::path("/proc/self/root") / real.relative_path()},
      {"via-pid", fs::path("/proc") / std::to_string(::getpid()) / "cwd" / fs::relative(real, fs::current_path())},
      {"via-dev-fd", fs::path("/dev/fd") / std::to_string(descriptor)}};
  for (const auto& [name, target] : links) fs::create_symlink(target, project_hooks() / name);
  const auto report = discover();
  ::close(descriptor);
  EXPECT_THAT(report.hooks, IsEmpty());
  for (const auto& [name, target] : links) {
    const SkippedFile refused = skipped(report, name);
    EXPECT_EQ(refused.why, SkippedFile::Why::refused) << name;
    EXPECT_THAT(refused.reason, AllOf(HasSubstr("procfs"), HasSubstr("link to the file itself"))) << name;
  }
}

// A hook runs in the event's working directory: a '#!' line that names a
// file by a relative path (the interpreter, env's program, a path in env's
// -S command) runs whatever the event's directory holds there, which nobody
// checked or trusted. A name PATH finds, or an absolute path, is the same everywhere.
TEST_F(Discovery, AHookWhoseInterpreterLineNamesARelativePathIsRefused) {
  const std::map<std::string, std::string> lines{{"interpreter", "#!tools/python3"},
                                                 {"env-program", "#!/usr/bin/env bin/node"},
                                                 {"env-split", "#!/usr/bin/env -S node --require=./init.js"}};
  for (const auto& [name, line] : lines)
    write_file(project_hooks() / name, line + "\n[ \"$1\" = hook ] && echo tool_call\n", 0755);
  write_file(project_hooks() / "from-path", "#!/usr/bin/env sh\n[ \"$1\" = hook ] && echo tool_call\n", 0755);
  const auto report = discover();
  EXPECT_THAT(report.hooks, ElementsAre(Field(&DiscoveredHook::name, "from-path")));
  for (const auto& [name, line] : lines) {
    const SkippedFile refused = skipped(report, name);
    EXPECT_EQ(refused.why, SkippedFile::Why::refused) << name;
    EXPECT_THAT(refused.reason, AllOf(HasSubstr("its '#!' line names"), HasSubstr("by a relative path"))) << name;
  }
}

TEST_F(Discovery, AHookDirectoryReachedThroughProcIsRefusedAsAWhole) {
  TempDir elsewhere;
  write_hook(elsewhere.path() / "hooks" / "guard", "tool_call", "");
  testing::make_directories(project_hooks().parent_path());
  fs::create_symlink(fs::path("/proc/self/root") / (elsewhere.path() / "hooks").relative_path(), project_hooks());
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, project_hooks());
  EXPECT_EQ(report.skipped[0].why, SkippedFile::Why::refused);
  EXPECT_THAT(report.skipped[0].reason, HasSubstr("procfs"));
}

// The link is in the middle of the hook directory's path: a world-writable
// directory holds it, so anyone could point it at hooks of their own.
TEST_F(Discovery, AHookDirectoryReachedThroughASymlinkInAWritableDirectoryIsRefused) {
  TempDir elsewhere;
  const fs::path open_dir = elsewhere.path() / "open";
  write_hook(elsewhere.path() / "safe" / "hooks" / "guard", "tool_call", "");
  testing::make_directories(open_dir);
  fs::create_symlink(elsewhere.path() / "safe", open_dir / "project");
  ::chmod(open_dir.c_str(), 0777);
  HookDirectories dirs;
  dirs.add(open_dir / "project" / "hooks", "project");
  const auto report = discover_hooks(dirs, {});
  EXPECT_THAT(report.hooks, IsEmpty());
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].why, SkippedFile::Why::refused);
  EXPECT_THAT(report.skipped[0].reason, HasSubstr("the directory '" + open_dir.string() + "' on its path is writable"));
}

// A file or directory owned by another user (not root) is refused: that user
// could change what runs as you. Changing ownership needs root.
TEST_F(Discovery, AHookFileOwnedByAnotherUserIsRefused) {
  HOOKBUS_NEEDS_ROOT();
  write_hook(project_hooks() / "theirs", "tool_call", "");
  ASSERT_EQ(::chown((project_hooks() / "theirs").c_str(), testing::another_user, testing::another_user), 0);
  const SkippedFile refused = skipped(discover(), "theirs");
  EXPECT_EQ(refused.why, SkippedFile::Why::refused);
  EXPECT_THAT(refused.reason, AllOf(HasSubstr("is owned by user 65534"), HasSubstr("chown")));
}

TEST_F(Discovery, AHookDirectoryOwnedByAnotherUserIsRefused) {
  HOOKBUS_NEEDS_ROOT();
  write_hook(project_hooks() / "guard", "tool_call", "");
  ASSERT_EQ(::chown(project_hooks().c_str(), testing::another_user, testing::another_user), 0);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(report.skipped.at(0).reason, HasSubstr("is owned by user 65534"));
}

// In a sticky directory such as /tmp the owner of a link may replace it.
TEST_F(Discovery, ASymlinkOnThePathOwnedByAnotherUserIsRefused) {
  HOOKBUS_NEEDS_ROOT();
  TempDir elsewhere;
  write_hook(elsewhere.path() / "real-guard", "tool_call", "");
  testing::make_directories(project_hooks());
  fs::create_symlink(elsewhere.path() / "real-guard", project_hooks() / "guard");
  ASSERT_EQ(::lchown((project_hooks() / "guard").c_str(), testing::another_user, testing::another_user), 0);
  const SkippedFile refused = skipped(discover(), "guard");
  EXPECT_EQ(refused.why, SkippedFile::Why::refused);
  EXPECT_THAT(refused.reason, HasSubstr("the symlink '" + (project_hooks() / "guard").string() + "' on its path is owned by user 65534"));
}

TEST_F(Discovery, ADirectoryAboveTheHookDirectoryOwnedByAnotherUserRefusesIt) {
  HOOKBUS_NEEDS_ROOT();
  write_hook(project_hooks() / "guard", "tool_call", "");
  ASSERT_EQ(::chown((project_.path() / ".hookbus").c_str(), testing::another_user, testing::another_user), 0);
  const auto report = discover();
  EXPECT_THAT(report.hooks, IsEmpty());
  EXPECT_THAT(report.skipped.at(0).reason,
              AllOf(HasSubstr("the directory '" + (project_.path() / ".hookbus").string() + "' on its path"),
                    HasSubstr("is owned by user 65534")));
}

TEST_F(Discovery, ASymlinkedHookWhoseTargetIsOwnedByAnotherUserIsRefused) {
  HOOKBUS_NEEDS_ROOT();
  TempDir elsewhere;
  write_hook(elsewhere.path() / "hooks" / "theirs", "tool_call", "");
  ASSERT_EQ(::chown((elsewhere.path() / "hooks" / "theirs").c_str(), testing::another_user, testing::another_user), 0);
  testing::make_directories(project_hooks());
  fs::create_symlink(elsewhere.path() / "hooks" / "theirs", project_hooks() / "guard");
  const SkippedFile refused = skipped(discover(), "guard");
  EXPECT_EQ(refused.why, SkippedFile::Why::refused);
  EXPECT_THAT(refused.reason, AllOf(HasSubstr("'" + (elsewhere.path() / "hooks" / "theirs").string() + "'"),
                                    HasSubstr("is owned by user 65534")));
}

// The query runs in a fresh empty directory: a hook that writes into its
// working directory while answering `hook` must not touch the project.
TEST_F(Discovery, TheQueryRunsInAFreshEmptyDirectoryWithStdinAtEndOfFile) {
  const fs::path seen = project_.path() / "seen";
  write_script(project_hooks() / "nosy",
               "if [ \"$1\" = hook ]; then\n"
               "  { pwd; ls -A | wc -l; cat | wc -c; } > '" + seen.string() + "'\n"
               "  touch written-by-query; echo tool_call; fi\n");
  ASSERT_THAT(names_of(discover()), ElementsAre("nosy"));
  std::istringstream lines(testing::read_file(seen));
  std::string cwd, entries, stdin_bytes;
  std::getline(lines, cwd);
  std::getline(lines, entries);
  std::getline(lines, stdin_bytes);
  EXPECT_NE(fs::path(cwd), project_.path());
  EXPECT_FALSE(fs::exists(cwd)) << "the scratch directory is removed afterwards";
  EXPECT_EQ(std::stoi(entries), 0);
  EXPECT_EQ(std::stoi(stdin_bytes), 0);
  EXPECT_FALSE(fs::exists(project_.path() / "written-by-query"));
  EXPECT_FALSE(fs::exists(fs::current_path() / "written-by-query"));
}

// The query is hookbus asking which events; it runs in a directory removed
// afterwards, and whatever it started goes with its answer.
TEST_F(Discovery, TheQueryLeavesNothingRunning) {
  write_script(project_hooks() / "starter", testing::start_setsid_sleeper(file("detached.pid")) + "echo tool_call\n");
  EXPECT_THAT(names_of(discover()), ElementsAre("starter"));
  EXPECT_TRUE(testing::process_gone(pid_in("detached.pid")));
}

TEST_F(Discovery, TheQueryGetsAMinimalEnvironment) {
  const fs::path seen = project_.path() / "env";
  const testing::ScopedEnvironment secret{{"HOOKBUS_TEST_SECRET", "do not leak"}};
  write_script(project_hooks() / "env",
               "if [ \"$1\" = hook ]; then /usr/bin/env | sort > '" + seen.string() + "'; echo tool_call; fi\n");
  ASSERT_THAT(names_of(discover()), ElementsAre("env"));
  const std::string env = testing::read_file(seen);
  EXPECT_THAT(env, AllOf(HasSubstr("HOOKBUS_QUERY=1\n"), HasSubstr("HOOKBUS_HOOK_NAME=env\n"), HasSubstr("PATH="),
                         ::testing::Not(HasSubstr("HOOKBUS_TEST_SECRET"))));
}

// The query cache: a hook that counts its own executions proves it was asked once.
TEST_F(Discovery, ACachedAnswerSparesTheQueryForAnUnchangedFile) {
  const fs::path count = project_.path() / "count";
  const fs::path cache = user_.path() / "cache" / "queries.json";
  write_hook(project_hooks() / "counted", "tool_call", "");
  write_script(project_hooks() / "counted",
               "if [ \"$1\" = hook ]; then echo x >> '" + count.string() + "'; echo tool_call; fi\n");
  HookDirectories dirs;
  dirs.add(project_hooks(), "project");
  for (int i = 0; i < 3; ++i) {
    const auto report = discover_hooks(dirs, {.query_cache = cache});
    ASSERT_THAT(names_of(report), ElementsAre("counted"));
    EXPECT_EQ(report.hooks[0].events_from, i == 0 ? EventsFrom::query : EventsFrom::cache);
  }
  EXPECT_EQ(testing::read_file(count), "x\n");
  // Any change to the file asks again.
  write_script(project_hooks() / "counted",
               "if [ \"$1\" = hook ]; then echo x >> '" + count.string() + "'; echo agent_end; fi\n");
  const auto report = discover_hooks(dirs, {.query_cache = cache});
  EXPECT_EQ(report.hooks.at(0).events.at(0).index, event_index<AgentEndEvent>);
  EXPECT_EQ(testing::read_file(count), "x\nx\n");
}

TEST_F(Discovery, AFailedQueryIsNotCached) {
  const fs::path count = project_.path() / "count";
  const fs::path cache = user_.path() / "cache" / "queries.json";
  write_script(project_hooks() / "broken", "echo x >> '" + count.string() + "'; exit 1\n");
  HookDirectories dirs;
  dirs.add(project_hooks(), "project");
  (void)discover_hooks(dirs, {.query_cache = cache});
  (void)discover_hooks(dirs, {.query_cache = cache});
  EXPECT_EQ(testing::read_file(count), "x\nx\n");
}

TEST_F(Discovery, AHookWhoseEventsConfigDeclaresIsNeverQueried) {
  const fs::path count = project_.path() / "count";
  write_script(project_hooks() / "declared", "echo x >> '" + count.string() + "'\n");
  HookDirectories dirs;
  dirs.add(project_hooks(), "project");
  const auto report = discover_hooks(
      dirs, {.declared = [](Layer, std::string_view name) -> std::optional<HookDeclaration> {
        if (name == "declared") return HookDeclaration{HookProtocol::hookbus, {"before_tool_call"}};
        return std::nullopt;
      }});
  ASSERT_THAT(names_of(report), ElementsAre("declared"));
  EXPECT_EQ(report.hooks[0].events_from, EventsFrom::declared);
  EXPECT_EQ(report.hooks[0].events.at(0).index, event_index<ToolCallEvent>);
  EXPECT_FALSE(fs::exists(count));
}

TEST_F(Discovery, AFileOfALayerThatMayNotRunIsListedAndNeverExecuted) {
  const fs::path count = project_.path() / "count";
  write_script(project_hooks() / "untrusted", "echo x >> '" + count.string() + "'; echo tool_call\n");
  HookDirectories dirs;
  dirs.add(project_hooks(), "project", "", Layer::project);
  const auto report = discover_hooks(dirs, {.why_not_run = [](Layer layer) -> std::optional<std::string> {
                                        if (layer == Layer::project) return "the project is untrusted";
                                        return std::nullopt;
                                      }});
  EXPECT_THAT(report.hooks, IsEmpty());
  const SkippedFile not_run = skipped(report, "untrusted");
  EXPECT_EQ(not_run.why, SkippedFile::Why::not_run);
  EXPECT_EQ(not_run.reason, "the project is untrusted");
  EXPECT_FALSE(fs::exists(count));
}

TEST_F(Discovery, HooksOfTheSameNameInTwoLayersAreTwoHooksTheMoreTrustedFirst) {
  write_hook(project_hooks() / "guard", "tool_call", "");
  write_hook(user_hooks() / "guard", "tool_call", "");
  HookDirectories dirs;
  dirs.add(project_hooks(), "project", "", Layer::project);
  dirs.add(user_hooks(), "user", "", Layer::user);
  const auto report = discover_hooks(dirs);
  ASSERT_EQ(report.hooks.size(), 2u);
  EXPECT_EQ(report.hooks[0].layer, Layer::user);
  EXPECT_EQ(report.hooks[1].layer, Layer::project);
  EXPECT_THAT(report.skipped, IsEmpty());
}

// Odd file names are names like any other: never split, interpreted or run through a shell.
TEST_F(Discovery, HooksWithOddNamesAreFoundAndRunByTheirExactName) {
  for (const std::string name : {"with space", "-starts-with-dash", "quote'and\"double", "tab\there", "ünïcödé"})
    write_hook(project_hooks() / name, "tool_call", "");
  const auto report = discover();
  EXPECT_THAT(names_of(report), ElementsAre("-starts-with-dash", "quote'and\"double", "tab\there", "with space", "ünïcödé"));
}

TEST(UnsafeHookFile, NamesWhyAFileMustNotRun) {
  TempDir dir;
  write_hook(dir / "ok", "tool_call", "");
  write_hook(dir / "open", "tool_call", "", 0777);
  EXPECT_EQ(unsafe_hook_file(dir / "ok"), std::nullopt);
  EXPECT_THAT(unsafe_hook_file(dir / "open"), ::testing::Optional(HasSubstr("writable by group or others")));
}

TEST(UnsafeHookFile, ASymlinkLoopIsAnErrorNotFollowedForever) {
  TempDir dir;
  fs::create_symlink(dir / "b", dir / "a");
  fs::create_symlink(dir / "a", dir / "b");
  EXPECT_THAT(unsafe_hook_file(dir / "a"), ::testing::Optional(HasSubstr("Too many levels of symbolic links")));
}

// procfs is known by what statfs says of it, wherever it is mounted: through
// a bind mount of /proc, /proc/self/root is as much another process's root.
TEST(UnsafeHookFile, AHookReachedThroughABindMountOfProcIsRefused) {
  HOOKBUS_NEEDS_ROOT();
  TempDir dir;
  const fs::path real = write_hook(dir / "guard", "tool_call", "");
  testing::make_directories(dir / "proc");
  if (::mount("/proc", (dir / "proc").c_str(), nullptr, MS_BIND, nullptr) != 0)
    GTEST_SKIP() << "cannot bind-mount /proc here: " << std::strerror(errno);
  const struct Unmount {
    fs::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{dir / "proc"};  // before the directory is removed
  fs::create_symlink(dir / "proc" / "self" / "root" / real.relative_path(), dir / "linked");
  EXPECT_THAT(unsafe_hook_file(dir / "linked"), ::testing::Optional(HasSubstr("procfs")));
}

TEST_F(Discovery, PluginHooksAreNamedWithTheirOrgAndRepo) {
  write_hook(project_.path() / ".hookbus" / "plugins" / "acme" / "tools" / "hooks" / "guard", "tool_call", "");
  write_hook(project_hooks() / "guard", "tool_call", "");
  const testing::ScopedEnvironment env{{"XDG_CONFIG_HOME", user_.path().string()}};
  const auto report = discover_hooks(default_hook_directories(project_.path()));
  ASSERT_THAT(names_of(report), ElementsAre("guard", "acme/tools/guard"));
  EXPECT_EQ(report.hooks[1].source, "project plugin acme/tools");
}

TEST(DefaultHookDirectories, AreConfigThenProjectThenUserEachFollowedByItsPlugins) {
  TempDir project;
  TempDir user;
  testing::make_directories(user.path() / "hookbus" / "plugins" / "org" / "repo" / "hooks");
  const testing::ScopedEnvironment env{{"XDG_CONFIG_HOME", user.path().string()}};
  const auto dirs = default_hook_directories(project.path(), {"/etc/hookbus/hooks"});
  std::vector<std::string> listed;
  for (const auto& d : dirs.entries) listed.push_back(d.path.string() + " [" + d.prefix + "] " + d.source);
  EXPECT_THAT(listed, ElementsAre("/etc/hookbus/hooks [] config",
                                  (project.path() / ".hookbus" / "hooks").string() + " [] project",
                                  (user.path() / "hookbus" / "hooks").string() + " [] user",
                                  (user.path() / "hookbus" / "plugins" / "org" / "repo" / "hooks").string() +
                                      " [org/repo/] user plugin org/repo"));
}

TEST(DefaultHookDirectories, FallBackToDotConfigInHomeWithoutXdgConfigHome) {
  const testing::ScopedEnvironment env{{"XDG_CONFIG_HOME", std::nullopt}};
  const auto dirs = default_hook_directories("/project");
  ASSERT_NE(std::getenv("HOME"), nullptr);
  ASSERT_EQ(dirs.entries.size(), 2u);
  EXPECT_EQ(dirs.entries[1].path, fs::path(std::getenv("HOME")) / ".config" / "hookbus" / "hooks");
}

// ====================================================== execution protocol

// The fixture of the persistent and background tests, with each hook asked
// for its events and installed with the one-config form.
class ExternalHooks : public testing::ProjectHooks {
 protected:
  fs::path hook_dir() const { return project_.path() / ".hookbus" / "hooks"; }
  fs::path side_effect(const std::string& name) const { return project_.path() / name; }

  void install() {
    HookDirectories dirs;
    dirs.add(hook_dir(), "project");
    report_ = discover_hooks(dirs);
    installed_.connections = install_external_hooks(hooks_, report_, config_);
  }

  std::string only_error_message() const {
    EXPECT_EQ(errors_.size(), 1u);
    return errors_.empty() ? "" : errors_[0].message;
  }
};

TEST_F(ExternalHooks, EachHookIsAHandlerLabelledWithItsNameInRunOrder) {
  write_hook(hook("b-second"), "tool_call", "");
  write_hook(hook("a-first"), "tool_call agent_end", "");
  install();
  EXPECT_THAT(hooks_.handlers("tool_call"), ElementsAre("a-first", "b-second"));
  EXPECT_THAT(hooks_.handlers("agent_end"), ElementsAre("a-first"));
}

TEST_F(ExternalHooks, ATraceNamesTheHookAsExternalWithItsFileAndProtocol) {
  write_hook(hook("guard"), "tool_call", "echo '{\"decision\": \"deny\", \"reason\": \"no\"}'\n");
  install();
  std::vector<EmissionRecord> records;
  auto observer = hooks_.on_emission([&](const EmissionRecord& r) { records.push_back(r); });
  (void)hooks_.emit(tool_call());
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 1u);
  const HandlerRecord& guard = records[0].handlers[0];
  EXPECT_EQ(guard.label, "guard");
  EXPECT_EQ(guard.kind, RecordedKind::external);
  EXPECT_EQ(guard.source, hook("guard").string());
  EXPECT_EQ(guard.protocol, "hookbus");
  EXPECT_EQ(guard.action, HandlerAction::deny);
  EXPECT_EQ(guard.reason, "no");
  EXPECT_EQ(records[0].decided_by, (Decider{"guard", hook("guard").string()}));
}

TEST_F(ExternalHooks, ATraceNamesAHookDeclaredAsKodeletsWithKodeletsProtocol) {
  testing::write_script(hook("guard"), "echo '{\"blocked\": true, \"reason\": \"no\"}'\n");
  config_.hooks["guard"] = HookSettings{.protocol = HookProtocol::kodelet, .events = {"before_tool_call"}};
  testing::ProjectHooks::install();
  std::vector<EmissionRecord> records;
  auto observer = hooks_.on_emission([&](const EmissionRecord& r) { records.push_back(r); });
  (void)hooks_.emit(tool_call());
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 1u);
  EXPECT_EQ(records[0].handlers[0].protocol, "kodelet");
  EXPECT_EQ(records[0].handlers[0].action, HandlerAction::deny);  // run as hookbus's protocol runs it
}

TEST_F(ExternalHooks, ThePayloadIsTheCatalogueJsonWithKodeletKeys) {
  write_hook(hook("capture"), "before_tool_call", "cat > '" + side_effect("payload.json").string() + "'\n");
  install();
  (void)hooks_.emit(tool_call("ls -l"));
  const auto payload = boost::json::parse(testing::read_file(side_effect("payload.json"))).as_object();
  EXPECT_EQ(payload.at("type"), "tool_call");
  EXPECT_EQ(payload.at("tool_name"), "bash");
  EXPECT_EQ(payload.at("input").at("command"), "ls -l");
  EXPECT_EQ(payload.at("context").at("session_id"), "session-1");
  EXPECT_EQ(payload.at("hook_event_name"), "tool_call");
  EXPECT_EQ(payload.at("event"), "before_tool_call");
  EXPECT_EQ(payload.at("conv_id"), "session-1");
  EXPECT_EQ(payload.at("cwd").as_string(), project_.path().string());
  EXPECT_EQ(payload.at("invoked_by"), "main");
  EXPECT_EQ(payload.at("tool_input").at("command"), "ls -l");
}

// A hookbus-protocol hook that asks the person before any command: with no
// answer in its payload it asks (ask_person) and says ask; on resume it reads
// its answer from approval_answers and decides with it.
constexpr const char* kAskingHook =
    "answer = payload.get('approval_answers', {}).get('run')\n"
    "if answer is None:\n"
    "    print(json.dumps({'decision': 'ask', 'ask_person': [{'name': 'run', 'reason': 'runs a command',\n"
    "                                                         'question': payload['input']}]}))\n"
    "else:\n"
    "    print(json.dumps({'decision': 'allow' if answer['approved'] else 'deny', 'reason': answer['message']}))\n";

TEST_F(ExternalHooks, AHookAsksAPersonAndDecidesWithTheAnswerItReadsOnResume) {
  write_python_hook(hook("asker"), "tool_call", kAskingHook);
  install();
  Approvals asked;
  EXPECT_EQ(asked.emit(hooks_, tool_call("make")).decision, Decision::ask);
  ASSERT_EQ(asked.pending().size(), 1u);
  const ApprovalRequest& request = asked.pending()[0];
  EXPECT_EQ(request.handler, "asker");
  EXPECT_EQ(request.source, hook("asker").string());
  EXPECT_EQ(request.layer, Layer::project);
  EXPECT_EQ(request.reason, "runs a command");
  EXPECT_EQ(request.question.at("command"), "make");

  Approvals resumed(asked.pending(), {{.id = request.id, .answer = {{"approved", false}, {"message", "not now"}}}});
  const ToolCallResult outcome = resumed.emit(hooks_, tool_call("make"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "not now");
  EXPECT_FALSE(resumed.paused());
}

TEST_F(ExternalHooks, AnAskOfTheWrongShapeIsTheHooksFailureNamingTheField) {
  write_hook(hook("asker"), "tool_call", "echo '{\"ask_person\": [{\"reason\": \"no name\"}]}'\n");
  install();
  Approvals asked;
  (void)asked.emit(hooks_, tool_call());
  EXPECT_THAT(only_error_message(), HasSubstr("ask_person[0]: 'name' is missing"));
  EXPECT_FALSE(asked.paused());
}

TEST(HookPayload, NeverOverwritesAKeyOfTheEventItself) {
  const auto payload = hook_payload(UserBashEvent{.context = {.cwd = "/agent"}, .command = "ls", .cwd = "/bash"}, "user_bash");
  EXPECT_EQ(payload.at("cwd"), "/bash");
}

TEST_F(ExternalHooks, ExitZeroWithEmptyStdoutIsNoChange) {
  write_hook(hook("quiet"), "tool_call", "cat >/dev/null\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()), ToolCallResult{});
  EXPECT_THAT(errors_, IsEmpty());
}

TEST_F(ExternalHooks, ExitZeroWithJsonNullIsNoChange) {
  write_hook(hook("python-none"), "tool_call", "echo null\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()), ToolCallResult{});
  EXPECT_THAT(errors_, IsEmpty());
}

TEST_F(ExternalHooks, AResultOnStdoutIsReadLeniently) {
  write_hook(hook("guard"), "tool_call", "echo '{\"decision\": \"deny\", \"reason\": \"not today\", \"colour\": \"blue\"}'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "not today");
}

TEST_F(ExternalHooks, ADecisionNamesTheHookAndItsFile) {
  write_hook(hook("asker"), "tool_call", "echo '{\"decision\": \"ask\"}'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decided_by, (Decider{"asker", hook("asker").string()}));
}

TEST_F(ExternalHooks, TheLegacyBlockFieldDeniesAToolCall) {
  write_hook(hook("old-guard"), "tool_call", "echo '{\"block\": true, \"reason\": \"old style\"}'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "old style");
}

TEST_F(ExternalHooks, KodeletsBlockedFieldBlocksAToolCall) {
  write_hook(hook("kodelet-guard"), "before_tool_call", "echo '{\"blocked\": true, \"reason\": \"kodelet says no\"}'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "kodelet says no");
}

TEST_F(ExternalHooks, KodeletsBlockedFieldRejectsAUserMessage) {
  write_hook(hook("kodelet-filter"), "user_message_send", "echo '{\"blocked\": true, \"reason\": \"off topic\"}'\n");
  install();
  const InputResult outcome = hooks_.emit(InputEvent{.text = "hello"});
  EXPECT_EQ(outcome.action, InputAction::reject);
  EXPECT_EQ(outcome.reason, "off topic");
}

// A hook that may run ahead (docs/semantics.md §16) may have started by
// then: one with side effects says it runs at its turn (parallel_hooks_test.cpp).
TEST_F(ExternalHooks, ABlockStopsTheChainSoASequentialHookAfterItDoesNotRun) {
  write_hook(hook("1-block"), "tool_call", "echo '{\"block\": true, \"reason\": \"first\"}'\n");
  write_hook(hook("2-side-effect"), "tool_call", "touch '" + side_effect("second-ran").string() + "'\n");
  config_.hooks["2-side-effect"].sequential = true;
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "first");
  EXPECT_FALSE(fs::exists(side_effect("second-ran")));
}

TEST_F(ExternalHooks, FollowUpMessagesAccumulateInHookOrder) {
  write_hook(hook("a"), "agent_stop", "echo '{\"follow_up_messages\": [\"from a 1\", \"from a 2\"]}'\n");
  write_hook(hook("b"), "agent_end", "echo '{\"follow_up_messages\": [\"from b\"]}'\n");
  install();
  EXPECT_THAT(hooks_.emit(AgentEndEvent{}).follow_up_messages, ElementsAre("from a 1", "from a 2", "from b"));
}

TEST_F(ExternalHooks, ToolResultPatchesChainAndEachHookSeesTheEarlierOnes) {
  write_python_hook(hook("a"), "tool_result", "print(json.dumps({'content': [{'type': 'text', 'text': 'patched by a'}]}))\n");
  write_python_hook(hook("b"), "after_tool_call",
                    "seen = payload['content'][0]['text']\n"
                    "print(json.dumps({'content': [{'type': 'text', 'text': seen + ', then b'}], 'is_error': True}))\n");
  install();
  const ToolResultResult outcome = hooks_.emit(ToolResultEvent{.content = {TextPart{"original"}}});
  ASSERT_TRUE(outcome.content);
  EXPECT_THAT(*outcome.content, ElementsAre(ContentPart(TextPart{"patched by a, then b"})));
  EXPECT_EQ(outcome.is_error, true);
}

// A hookbus-protocol hook answers the model call as an in-process handler
// does: the first rewrites the request, the second sees it and answers from
// its cache, so the model is not called.
TEST_F(ExternalHooks, HooksRewriteAndAnswerTheModelCall) {
  write_python_hook(hook("a"), "before_model_call",
                    "print(json.dumps({'system_prompt': payload['system_prompt'] + ' No keys.',\n"
                    "                  'settings': {'temperature': 0.5, 'tool_choice': 'none'}}))\n");
  write_python_hook(hook("b"), "before_llm_call",
                    "print(json.dumps({'response': {'role': 'assistant', 'content': [{'type': 'text',\n"
                    "                  'text': 'cached for ' + payload['system_prompt']}]}}))\n");
  install();
  const BeforeModelCallResult outcome =
      hooks_.emit(BeforeModelCallEvent{.model = "m", .messages = {Message::user("hi")}, .system_prompt = "Be brief."});
  EXPECT_EQ(outcome.system_prompt, "Be brief. No keys.");
  EXPECT_EQ(outcome.settings, (ModelSettings{.temperature = 0.5, .tool_choice = ToolChoice::none}));
  EXPECT_EQ(outcome.response, Message::assistant("cached for Be brief. No keys."));
  ASSERT_TRUE(outcome.decided_by);
  EXPECT_EQ(outcome.decided_by->handler, "b");
}

// after_model_call: a hook replaces the response; exit code 2 rejects it with stderr as the reason.
TEST_F(ExternalHooks, HooksReplaceOrRejectTheModelsResponse) {
  write_python_hook(hook("a"), "after_model_call",
                    "text = payload['response']['content'][0]['text']\n"
                    "print(json.dumps({'response': {'role': 'assistant', 'content': [{'type': 'text',\n"
                    "                  'text': text.replace('sk-123', '[key]')}]}}))\n");
  install();
  const AfterModelCallResult replaced = hooks_.emit(AfterModelCallEvent{.response = Message::assistant("key sk-123")});
  EXPECT_EQ(replaced.response, Message::assistant("key [key]"));
  write_hook(hook("b"), "after_model_call", "echo 'the reply leaks a key' >&2; exit 2\n");
  install();
  const AfterModelCallResult rejected = hooks_.emit(AfterModelCallEvent{.response = Message::assistant("key sk-123")});
  EXPECT_TRUE(rejected.reject);
  EXPECT_EQ(rejected.reason, "the reply leaks a key");
}

TEST_F(ExternalHooks, ExitCodeTwoBlocksWithStderrAsTheReason) {
  write_hook(hook("guard"), "tool_call", "echo '  rm -rf is not allowed  ' >&2; exit 2\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "rm -rf is not allowed");
  EXPECT_THAT(errors_, IsEmpty());
}

TEST_F(ExternalHooks, ExitCodeTwoWithoutStderrBlocksWithAReasonNamingTheHook) {
  write_hook(hook("guard"), "tool_call", "exit 2\n");
  install();
  EXPECT_THAT(hooks_.emit(tool_call()).reason, HasSubstr("'guard'"));
}

// Issue 10, point 1: the reason was the stderr bytes as they were, and the
// result's JSON was not UTF-8.
TEST_F(ExternalHooks, ExitCodeTwoWithIllFormedUtf8OnStderrBlocksWithAValidUtf8Reason) {
  write_hook(hook("guard"), "tool_call", "printf 'reason \\377\\376 here\\n' >&2; exit 2\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "reason \xEF\xBF\xBD\xEF\xBF\xBD here");
  const std::string written = write_json(to_json(outcome));
  EXPECT_EQ(parse_json(written, "result").at("reason"), "reason \xEF\xBF\xBD\xEF\xBF\xBD here");
}

TEST_F(ExternalHooks, AFailClosedReasonFromIllFormedStderrIsValidUtf8) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("guard"), "tool_call", "printf 'policy \\377 missing\\n' >&2; exit 1\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, HasSubstr("policy \xEF\xBF\xBD missing"));
  EXPECT_NO_THROW(parse_json(write_json(to_json(outcome)), "result"));
}

// Issue 10, point 2: the answer's number became -Infinity in what hookctl printed.
TEST_F(ExternalHooks, AnAnswerWithANumberBeyondADoublesRangeIsAFailureNamingItsPath) {
  write_hook(hook("huge"), "tool_call", "echo '{\"input\":{\"n\":-1e999}}'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.input, std::nullopt);
  EXPECT_THAT(only_error_message(),
              AllOf(HasSubstr(hook("huge").string()), HasSubstr("input.n: number out of range: -1e999")));
}

TEST_F(ExternalHooks, AnAnswerWithADuplicateKeyIsAFailureNamingIt) {
  write_hook(hook("twice"), "tool_call", "echo '{\"decision\":\"deny\",\"decision\":\"allow\"}'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("decision: duplicate key"));
}

TEST_F(ExternalHooks, AnAnswerNestedTooDeeplyIsAFailureNotACrash) {
  write_hook(hook("deep"), "tool_call", "head -c 100000 /dev/zero | tr '\\0' '['\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("nested more than 64 levels deep"));
}

TEST_F(ExternalHooks, ExitCodeTwoCancelsACancellableEvent) {
  write_hook(hook("keep"), "session_before_compact", "echo 'not now' >&2; exit 2\n");
  install();
  const SessionBeforeCompactResult outcome = hooks_.emit(SessionBeforeCompactEvent{});
  EXPECT_TRUE(outcome.cancel);
  EXPECT_EQ(outcome.reason, "not now");
}

TEST_F(ExternalHooks, ExitCodeTwoOnAnEventThatCannotBeRefusedIsAFailure) {
  write_hook(hook("confused"), "agent_end", "exit 2\n");
  install();
  EXPECT_EQ(hooks_.emit(AgentEndEvent{}), AgentEndResult{});
  EXPECT_THAT(only_error_message(), HasSubstr("cannot be refused"));
}

TEST_F(ExternalHooks, ANonZeroExitIsAFailureNamingTheHookWithItsStderr) {
  write_hook(hook("crashy"), "tool_call", "echo 'Traceback: boom' >&2; exit 1\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0].handler, "crashy");
  EXPECT_EQ(errors_[0].event, "tool_call");
  EXPECT_THAT(errors_[0].message,
              AllOf(HasSubstr(hook("crashy").string()), HasSubstr("exit code 1"), HasSubstr("Traceback: boom")));
  EXPECT_THAT(log_.text(), HasSubstr("hook 'crashy' failed on 'tool_call'"));
}

TEST_F(ExternalHooks, InvalidJsonIsAFailure) {
  write_hook(hook("sloppy"), "tool_call", "echo '{\"block\": tru'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), AllOf(HasSubstr(hook("sloppy").string()), HasSubstr("invalid JSON")));
}

TEST_F(ExternalHooks, AResultOfTheWrongShapeIsAFailure) {
  write_hook(hook("wrong"), "tool_call", "echo '{\"decision\": true}'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("ToolCallResult.decision: expected string, got boolean"));
}

TEST_F(ExternalHooks, AKodeletBlockedFieldThatIsNotABooleanIsAFailure) {
  write_hook(hook("vague"), "tool_call", "echo '{\"blocked\": \"yes\"}'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("blocked: expected boolean, got string"));
}

TEST_F(ExternalHooks, OutputOverTheLimitIsAFailure) {
  write_hook(hook("chatty"), "tool_call", "head -c 2097152 /dev/zero | tr '\\0' ' '\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("stdout limit of 1048576 bytes"));
}

// The timeouts below leave the hook ample time to write its pid files before
// it is killed; pid_in waits for a file.
TEST_F(ExternalHooks, ATimeoutKillsTheHookAndItsGrandchildAndIsAFailure) {
  config_.default_timeout = 2s;
  write_hook(hook("stuck"), "tool_call",
             "trap '' TERM\n"
             "sleep 60 &\n"
             "echo $! > '" + file("grandchild.pid") + "'\n"
             "while :; do sleep 1; done\n");
  install();
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_THAT(only_error_message(), HasSubstr("timed out after 2000 ms"));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

// Issue 10, point 6: a grandchild that called setsid survived the timeout kill.
TEST_F(ExternalHooks, ATimeoutKillsAGrandchildThatCalledSetsid) {
  config_.default_timeout = 2s;
  write_hook(hook("stuck"), "tool_call",
             "trap '' TERM\n" + testing::start_setsid_sleeper(file("grandchild.pid")) + "while :; do sleep 1; done\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("timed out after 2000 ms"));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

// A hook that stops its supervisor (SIGSTOP) cannot hold the emit past its
// timeout: the library kills the run without the supervisor, and the run is
// a failure under the hook's policy.
TEST_F(ExternalHooks, AFailClosedHookThatStopsItsSupervisorRefusesAfterItsTimeoutAndLeavesNothing) {
  config_.default_timeout = 2s;
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("guard"), "tool_call",
             "sleep 60 &\necho $! > '" + file("grandchild.pid") + "'\necho $$ > '" + file("hook.pid") + "'\n"
             "kill -STOP $PPID\nwait\n");
  install();
  const auto started = std::chrono::steady_clock::now();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_EQ(outcome.decision, Decision::deny);
  // Which the run reports first, its timeout or its silent, stopped
  // supervisor, depends on the scheduler: both end it, as a failure.
  EXPECT_THAT(outcome.reason, AllOf(StartsWith("hook 'guard' failed: "),
                                    ::testing::AnyOf(HasSubstr("timed out after 2000 ms"), HasSubstr("supervision lost"))));
  EXPECT_TRUE(testing::process_gone(pid_in("hook.pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

// A crash takes even what the hook detached with it (docs/external-hooks.md, Timeouts).
TEST_F(ExternalHooks, AHookKilledByASignalIsAFailureAndLeavesNothing) {
  write_hook(hook("crashing"), "tool_call", testing::start_setsid_sleeper(file("detached.pid")) + "kill -SEGV $$\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(only_error_message(), HasSubstr("killed by signal 11 (SIGSEGV)"));
  EXPECT_TRUE(testing::process_gone(pid_in("detached.pid")));
}

// What a hook detaches (its output elsewhere) goes on once it exits, as in
// Claude Code: `notify-send done &` in a hook is meant to finish.
TEST_F(ExternalHooks, WhatAHookDetachesOutlivesItByDefault) {
  write_hook(hook("notify"), "tool_call", testing::start_setsid_sleeper(file("detached.pid")) + "exit 0\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  const pid_t detached = pid_in("detached.pid");
  EXPECT_TRUE(testing::process_alive(detached));
  EXPECT_TRUE(kill_adopted(detached));  // ours to clean up now
}

TEST_F(ExternalHooks, UnderDetachedProcessesKillWhatAHookDetachesEndsWithItsRun) {
  write_hook(hook("notify"), "tool_call", testing::start_setsid_sleeper(file("detached.pid")) + "exit 0\n");
  ProjectHooks::install({.detached_processes = DetachedProcesses::kill});
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_TRUE(testing::process_gone(pid_in("detached.pid")));
}

TEST_F(ExternalHooks, AFailClosedHookKilledByASignalRefuses) {
  config_.hooks["crashing"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("crashing"), "tool_call", "kill -KILL $$\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(StartsWith("hook 'crashing' failed: "), HasSubstr("killed by signal 9 (SIGKILL)")));
}

TEST_F(ExternalHooks, APerHookTimeoutOverridesTheDefault) {
  config_.default_timeout = 100ms;
  config_.hooks["patient"] = HookSettings{.timeout = 20s};
  write_hook(hook("patient"), "tool_call", "sleep 0.5; echo '{\"block\": true}'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny);
  EXPECT_THAT(errors_, IsEmpty());
}

// Each run of the hook appends its event's name to the file `runs`.
TEST_F(ExternalHooks, AToolFilterRunsTheHookOnlyForItsToolsAndOnEveryEventWithoutATool) {
  config_.hooks["counter"] = HookSettings{.tools = "bash|mcp__*"};
  write_hook(hook("counter"), "tool_call tool_result agent_end",
             "echo \"$HOOKBUS_EVENT\" >> '" + side_effect("runs").string() + "'\n");
  install();
  for (const std::string tool : {"bash", "python", "mcp__github__issue", "bash2"}) {
    ToolCallEvent call = tool_call();
    call.tool_name = tool;
    (void)hooks_.emit(call);
    (void)hooks_.emit(ToolResultEvent{.tool_call_id = "c", .tool_name = tool});
  }
  (void)hooks_.emit(AgentEndEvent{});
  EXPECT_EQ(testing::read_file(side_effect("runs")), "tool_call\ntool_result\ntool_call\ntool_result\nagent_end\n");
  EXPECT_THAT(errors_, IsEmpty());
}

TEST_F(ExternalHooks, AToolFilterOnAHookOfNoToolEventIsAWarning) {
  config_.hooks["ender"] = HookSettings{.tools = "bash", .location = {.file = "config.json", .path = "hooks.ender"}};
  write_hook(hook("ender"), "agent_end", "");
  install();
  EXPECT_EQ(hooks_.handler_count("agent_end"), 1u);
  EXPECT_THAT(log_.text(), HasSubstr("hook 'ender' handles no event that names a tool, so \"tools\" changes nothing"));
}

TEST_F(ExternalHooks, AHookThatNeverReadsStdinGetsALargePayloadWithoutFailing) {
  write_hook(hook("lazy"), "tool_call", "echo '{\"block\": true, \"reason\": \"did not read\"}'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call(std::string(8 << 20, 'x')));
  EXPECT_EQ(outcome.reason, "did not read");
  EXPECT_THAT(errors_, IsEmpty());
}

TEST_F(ExternalHooks, HooksGetTheHookbusEnvironmentVariables) {
  write_hook(hook("env"), "tool_call",
             "printf '{\"block\": true, \"reason\": \"%s|%s|%s|%s\"}' "
             "\"$HOOKBUS_EVENT\" \"$HOOKBUS_SESSION_ID\" \"$HOOKBUS_PROJECT_DIR\" \"$HOOKBUS_HOOK_NAME\"\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).reason, "tool_call|session-1|" + project_.path().string() + "|env");
}

TEST_F(ExternalHooks, HooksRunInTheEventsWorkingDirectory) {
  TempDir elsewhere;
  write_hook(hook("where"), "tool_call", "printf '{\"block\": true, \"reason\": \"%s\"}' \"$(pwd -P)\"\n");
  install();
  ToolCallEvent event = tool_call();
  event.context.cwd = elsewhere.path().string();
  EXPECT_EQ(hooks_.emit(event).reason, fs::canonical(elsewhere.path()).string());
}

TEST_F(ExternalHooks, HooksInheritNoFileDescriptors) {
  write_hook(hook("fds"), "tool_call", "printf '{\"block\": true, \"reason\": \"%s\"}' \"$(ls /proc/self/fd | tr '\\n' ' ')\"\n");
  install();
  // ls's stdin (the payload pipe), stdout (the $(...) pipe), stderr, and the directory it lists.
  EXPECT_EQ(hooks_.emit(tool_call()).reason, "0 1 2 3 ");
}

TEST_F(ExternalHooks, FailOpenIsTheDefault) {
  write_hook(hook("guard"), "tool_call", "exit 1\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_EQ(errors_.size(), 1u);
}

TEST_F(ExternalHooks, AFailClosedHookThatFailsBlocksWithAReasonNamingIt) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("guard"), "tool_call", "echo 'policy file missing' >&2; exit 1\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("hook 'guard' failed"), HasSubstr("policy file missing")));
}

TEST_F(ExternalHooks, AHookConfiguredDisabledIsNotInstalled) {
  config_.hooks["guard"] = HookSettings{.disabled = true};
  write_hook(hook("guard"), "tool_call", "exit 2\n");
  install();
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
}

// Issue 10, point 4: a fail-closed hook that discovery refused (group-writable)
// was simply not installed, and tool_call was allowed.
TEST_F(ExternalHooks, AFailClosedHookThatIsRefusedMakesItsEventsRefuse) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("guard"), "tool_call", "exit 0\n", 0775);
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, StartsWith("hook 'guard' failed: it cannot run, and config makes it fail closed ("));
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("refused " + hook("guard").string()), HasSubstr("writable by group or others")));
}

// The hook's whole directory was refused: the reason names the directory, not
// "no hook file of that name".
TEST_F(ExternalHooks, AFailClosedHookInARefusedDirectoryRefusesNamingTheDirectory) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("guard"), "tool_call", "exit 0\n");
  ::chmod(hook_dir().c_str(), 0777);
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("the hook directory " + hook_dir().string() + " was refused"),
                                    HasSubstr("writable by group or others")));
  EXPECT_THAT(outcome.reason, Not(HasSubstr("in any hook directory")));
}

TEST_F(ExternalHooks, AFailClosedHookWithAMissingInterpreterMakesItsEventsRefuse) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_file(hook("guard"), "#!/no/such/interpreter\n", 0755);
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("refused " + hook("guard").string()),
                                    HasSubstr("the interpreter '/no/such/interpreter', which does not exist")));
}

// Declared events: the hook is installed without being asked, and fails at its run.
TEST_F(ExternalHooks, AFailClosedHookWithDeclaredEventsAndAMissingInterpreterRefusesItsEvents) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_file(hook("guard"), "#!/no/such/interpreter -x\n", 0755);
  HookDirectories dirs;
  dirs.add(hook_dir(), "project");
  report_ = discover_hooks(dirs, {.declared = [](Layer, std::string_view) {
                                    return std::optional(HookDeclaration{.events = {"tool_call"}});
                                  }});
  installed_.connections = install_external_hooks(hooks_, report_, config_);
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(StartsWith("hook 'guard' failed: "),
                                    HasSubstr("its '#!' line names the interpreter '/no/such/interpreter', which does "
                                              "not exist")));
}

// Regression (review, issue 10 point 4): without an exec bit the hook was ignored silently.
TEST_F(ExternalHooks, AFailClosedHookWithoutItsExecuteBitMakesItsEventsRefuse) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  write_hook(hook("guard"), "tool_call", "exit 0\n", 0644);
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("ignored"), HasSubstr("not executable")));
  EXPECT_THAT(log_.text(), HasSubstr("hook 'guard': it cannot run, and config makes it fail closed"));
}

TEST_F(ExternalHooks, AMissingFailClosedHookRefusesEveryGatingEventWhenItsEventsAreUnknown) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed};
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny);
  EXPECT_EQ(hooks_.emit(InputEvent{.text = "hi"}).action, InputAction::reject);
  EXPECT_TRUE(hooks_.emit(SessionBeforeSwitchEvent{}).cancel);
  EXPECT_THAT(hooks_.emit(tool_call()).reason, HasSubstr("no hook file of that name is in any hook directory"));
  EXPECT_EQ(hooks_.handler_count("agent_end"), 0u) << "observe-only events have nothing to refuse";
}

TEST_F(ExternalHooks, AMissingFailClosedHookWithDeclaredEventsRefusesOnlyThose) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed, .events = {"before_tool_call"}};
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny);
  EXPECT_EQ(hooks_.handler_count("input"), 0u);
}

TEST_F(ExternalHooks, ADisabledFailClosedHookRefusesNothing) {
  config_.hooks["guard"] = HookSettings{.failure = FailurePolicy::fail_closed, .disabled = true};
  install();
  EXPECT_NE(hooks_.emit(tool_call()).decision, Decision::deny);
}

TEST_F(ExternalHooks, AConfigEntryForNoHookIsAWarningNamingTheFileAndEntry) {
  config_.file = project_.path() / ".hookbus" / "config.json";
  config_.hooks["gaurd"] = HookSettings{.timeout = 5s, .location = {.file = config_.file, .path = "hooks.gaurd"}};
  install();
  EXPECT_THAT(log_.text(), HasSubstr(config_.file.string() + ": hooks.gaurd: no hook named 'gaurd' was found"));
}

TEST_F(ExternalHooks, ALowerLayersConfigCannotChangeAMoreTrustedLayersHook) {
  TempDir user;
  write_hook(user.path() / "guard", "tool_call", "echo guarded >&2; exit 2\n");
  HookDirectories dirs;
  dirs.add(user.path(), "user", "", Layer::user);
  report_ = discover_hooks(dirs);
  Config project;
  project.layer = Layer::project;
  project.file = "/p/.hookbus/config.json";
  project.hooks["guard"] = HookSettings{.disabled = true, .location = {.file = project.file, .path = "hooks.guard"}};
  InstalledHooks installed = install_external_hooks(hooks_, report_, LayeredConfig({project}), {.project_dir = project_.path()});
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny) << "the user's guard still runs";
  ASSERT_EQ(installed.report.warnings.size(), 1u);
  EXPECT_THAT(installed.report.warnings[0],
              AllOf(HasSubstr("/p/.hookbus/config.json: hooks.guard.disabled: the project config may not change the "
                              "user layer's hook 'guard'"),
                    HasSubstr("ignored")));
}

TEST_F(ExternalHooks, HooksOfALayerForbiddenByDisableAllHooksAreNotInstalled) {
  write_hook(hook("guard"), "tool_call", "exit 2\n");
  HookDirectories dirs;
  dirs.add(hook_dir(), "project", "", Layer::project);
  report_ = discover_hooks(dirs);
  Config user;
  user.layer = Layer::user;
  user.file = "/u/config.json";
  user.disable_all_hooks = true;
  InstalledHooks installed = install_external_hooks(hooks_, report_, LayeredConfig({user}), {.project_dir = project_.path()});
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
  ASSERT_EQ(installed.report.not_installed.size(), 1u);
  EXPECT_THAT(installed.report.not_installed[0].reason, HasSubstr("disable_all_hooks is set in /u/config.json"));
}

TEST_F(ExternalHooks, AHookWithANewlineInItsNameRunsAndIsNamedExactly) {
  write_hook(hook("line\nbreak"), "tool_call", "echo 'refused by a newline' >&2; exit 2\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.decided_by->handler, "line\nbreak");
}

TEST_F(ExternalHooks, NoZombieIsLeftAfterHooksRunFailAndTimeOut) {
  config_.default_timeout = 200ms;
  write_hook(hook("a-ok"), "tool_call", "true\n");
  write_hook(hook("b-fails"), "tool_call", "exit 1\n");
  write_hook(hook("c-hangs"), "tool_call", "trap '' TERM; while :; do sleep 1; done\n");
  install();
  (void)hooks_.emit(tool_call());
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(ExternalHooks, SeveralThreadsMayEmitToExternalHooksAtOnce) {
  write_hook(hook("echo"), "tool_call", "printf '{\"block\": true, \"reason\": \"%s\"}' \"$(sed -n 's/.*\"call_id_marker\":\"\\([^\"]*\\)\".*/\\1/p')\"\n");
  install();
  std::vector<std::string> reasons(6);
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < reasons.size(); ++t)
      threads.emplace_back([&, t] {
        ToolCallEvent event = tool_call();
        event.input["call_id_marker"] = "thread-" + std::to_string(t);
        reasons[t] = hooks_.emit(event).reason;
      });
  }
  for (std::size_t t = 0; t < reasons.size(); ++t) EXPECT_EQ(reasons[t], "thread-" + std::to_string(t));
  EXPECT_THAT(errors_, IsEmpty());
}

// =========================================================== one hook run

class RunExternalHook : public testing::NothingLeftBehind {};

TEST_F(RunExternalHook, ReturnsTheRawRunAndHookOutcomeReadsIt) {
  TempDir dir;
  const ExternalHook hook{.name = "guard", .path = write_hook(dir / "guard", "tool_call",
                                                              "echo 'checking' >&2; echo '{\"block\": true}'\n")};
  const HookEvent event = ToolCallEvent{.tool_name = "bash"};
  const ProcessResult run = run_external_hook(hook, event, "tool_call");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.stderr_text, "checking\n");
  EXPECT_EQ(hook_outcome(hook, event, run), HookOutcome(ToolCallResult{.decision = Decision::deny}));
}

// The refusal fills in only what the hook did not write: its other fields,
// and a decision it wrote itself, are its own.
TEST_F(RunExternalHook, ALegacyBlockKeepsTheHooksOtherFields) {
  TempDir dir;
  const ExternalHook hook{
      .name = "guard",
      .path = write_hook(dir / "guard", "tool_call",
                         "echo '{\"block\": true, \"reason\": \"no\", \"additional_context\": [\"why\"], "
                         "\"system_messages\": [\"seen\"]}'\n")};
  const HookEvent event = ToolCallEvent{.tool_name = "bash"};
  EXPECT_EQ(hook_outcome(hook, event, run_external_hook(hook, event, "tool_call")),
            HookOutcome(ToolCallResult{.decision = Decision::deny,
                                       .reason = "no",
                                       .additional_context = {"why"},
                                       .system_messages = {"seen"}}));
}

TEST_F(RunExternalHook, ALegacyBlockKeepsADecisionTheHookWroteItself) {
  TempDir dir;
  const ExternalHook hook{
      .name = "guard",
      .path = write_hook(dir / "guard", "tool_call", "echo '{\"blocked\": true, \"decision\": \"ask\"}'\n")};
  const HookEvent event = ToolCallEvent{.tool_name = "bash"};
  EXPECT_EQ(hook_outcome(hook, event, run_external_hook(hook, event, "tool_call")),
            HookOutcome(ToolCallResult{.decision = Decision::ask}));
}

// A run given a smaller stdout limit than the default is read with its own.
TEST_F(RunExternalHook, OutputCutAtTheRunsOwnLimitIsAFailureNamingThatLimit) {
  TempDir dir;
  const ExternalHook hook{.name = "chatty", .path = write_hook(dir / "chatty", "tool_call", "echo 0123456789abcdef0123\n")};
  const ProcessResult run = run_process({.program = hook.path, .arguments = {"run"}, .stdout_limit = 16});
  ASSERT_TRUE(run.stdout_truncated);
  try {
    (void)hook_outcome(hook, ToolCallEvent{}, run);
    ADD_FAILURE() << "no failure";
  } catch (const ExternalHookError& error) {
    EXPECT_THAT(error.what(), HasSubstr("printed more than its stdout limit of 16 bytes"));
  }
}

TEST_F(RunExternalHook, EachRunIsLoggedAtDebugLevelWithItsFileEventExitCodeDurationAndBytes) {
  TempDir dir;
  LogCapture log;
  logger()->set_level(spdlog::level::debug);
  const ExternalHook hook{.name = "guard",
                          .path = write_hook(dir / "guard", "tool_call", "cat >/dev/null; printf ok; echo why >&2; exit 3\n")};
  const HookEvent event = ToolCallEvent{.context = {.cwd = dir.path().string()}, .tool_name = "bash"};
  const ProcessResult run = run_external_hook(hook, event, "tool_call");
  const std::size_t bytes_in = write_json(hook_payload(event, "tool_call")).size();
  EXPECT_THAT(log.text(), HasSubstr(fmt::format("[debug] hook 'guard' ({}) ran for 'tool_call': exit code 3, {} ms, "
                                                "{} bytes in, 2 bytes out, 4 bytes on stderr",
                                                hook.path.string(), run.duration.count(), bytes_in)));
}

// The hook starts in the event's working directory; a relative path names
// the file relative to the engine's, where it was named (and checked).
TEST_F(RunExternalHook, ARelativePathRunsTheFileItNamesInTheEnginesDirectoryNotTheEvents) {
  TempDir engine;
  TempDir event_directory;
  write_hook(engine / "guard", "tool_call", "echo '{\"decision\": \"deny\", \"reason\": \"checked\"}'\n");
  write_hook(event_directory / "guard", "tool_call", "echo '{\"decision\": \"deny\", \"reason\": \"unchecked\"}'\n");
  const fs::path before = fs::current_path();
  fs::current_path(engine.path());
  const HookOutcome outcome = call_external_hook({.name = "guard", .path = "guard"},
                                                 ToolCallEvent{.context = {.cwd = event_directory.path().string()}},
                                                 "tool_call");
  fs::current_path(before);
  EXPECT_EQ(outcome, HookOutcome(ToolCallResult{.decision = Decision::deny, .reason = "checked"}));
}

TEST_F(RunExternalHook, AHookThatCannotStartIsAProcessError) {
  TempDir dir;
  const ExternalHook hook{.name = "gone", .path = dir / "gone"};
  EXPECT_THROW(call_external_hook(hook, ToolCallEvent{}, "tool_call"), ProcessError);
}

}  // namespace
}  // namespace hookbus
