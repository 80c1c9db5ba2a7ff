#pragma once
// Test helpers for the external-hook tests: a temporary directory that removes
// itself, executables written into it, a look at other processes, and a
// fixture that checks a test's runs left nothing behind.
#include <hookbus/process.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace hookbus::testing {

// mkdtemp: private (0700), unique, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hookbus-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Creates `dir` and its missing parents with exactly `mode`, whatever the
// umask: hook discovery refuses group-writable directories.
inline void make_directories(const std::filesystem::path& dir, mode_t mode = 0755) {
  if (dir.empty() || std::filesystem::exists(dir)) return;
  make_directories(dir.parent_path(), mode);
  std::filesystem::create_directory(dir);
  ::chmod(dir.c_str(), mode);
}

// Writes `text` to `file` with exactly `mode` (whatever the umask); creates
// the parent directories (0755).
inline std::filesystem::path write_file(const std::filesystem::path& file, const std::string& text,
                                        mode_t mode = 0644) {
  make_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  ::chmod(file.c_str(), mode);
  return file;
}

// An executable script (0755) starting with `#!/bin/sh`.
inline std::filesystem::path write_script(const std::filesystem::path& file, const std::string& body,
                                          mode_t mode = 0755) {
  return write_file(file, "#!/bin/sh\n" + body, mode);
}

// What a repository can leave where hookbus expects a config or settings
// file, besides one: each kind, named for messages, and how to put it at a path.
struct NoRegularFile {
  std::string_view what;
  void (*put)(const std::filesystem::path& file);
};
inline const std::vector<NoRegularFile>& no_regular_files() {
  static const std::vector<NoRegularFile> kinds{
      {"a dangling link", [](const std::filesystem::path& file) { std::filesystem::create_symlink("gone.json", file); }},
      {"a link to /dev/zero", [](const std::filesystem::path& file) { std::filesystem::create_symlink("/dev/zero", file); }},
      {"a FIFO", [](const std::filesystem::path& file) { ASSERT_EQ(::mkfifo(file.c_str(), 0644), 0); }},
      {"a directory", [](const std::filesystem::path& file) { make_directories(file); }}};
  return kinds;
}

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// True while the process exists and is not a zombie (a killed orphan may sit
// as a zombie until its new parent reaps it: it is dead all the same).
inline bool process_alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto state_at = line.rfind(')') + 2;
  return state_at < line.size() && line[state_at] != 'Z' && line[state_at] != 'X';
}

// True when no process `pid` exists any more, not even a zombie waiting to be reaped.
inline bool process_gone(pid_t pid) { return !std::filesystem::exists("/proc/" + std::to_string(pid)); }

// Waits (at most a few seconds) for a program to write `file`, e.g. the pid
// file of a process it started; the file's contents, or "" if it never came.
inline std::string wait_for_file(const std::filesystem::path& file) {
  for (int i = 0; i < 500; ++i) {
    if (std::string text = read_file(file); !text.empty() && text.back() == '\n') return text;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return read_file(file);
}

// This process's open file descriptors (the listing's own included: the same every time).
inline int open_descriptor_count() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
  return count;
}

// This process's children, alive or zombie: each pid with its command line.
inline std::vector<std::pair<pid_t, std::string>> children_of_this_process() {
  std::vector<std::pair<pid_t, std::string>> children;
  const pid_t me = ::getpid();
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(it->path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;  // gone meanwhile
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    std::istringstream after(line.substr(line.rfind(')') + 2));
    char state = 0;
    pid_t parent = 0;
    after >> state >> parent;
    if (parent != me) continue;
    std::string command = read_file(it->path() / "cmdline");
    std::replace(command.begin(), command.end(), '\0', ' ');
    if (command.empty()) command = line.substr(line.find('('), line.rfind(')') - line.find('(') + 1);  // a zombie
    children.emplace_back(static_cast<pid_t>(std::stoi(name)), command);
  }
  return children;
}

// Each test of a fixture derived from this ends by checking that its runs left
// nothing behind: no file descriptor of ours open, and no process whatever it
// did to detach (a background job, setsid, a double fork, a daemon; through
// hookctl too).
//
// How: for the length of each test this process is a child subreaper
// (PR_SET_CHILD_SUBREAPER). A process whose parent dies is reparented to its
// nearest living subreaper ancestor: while a run lasts that is the run's
// supervisor, which kills and reaps it; once the run is over, this process.
// So every process a test's runs left is this process's child when the test
// ends: the test fails naming each, and each is killed and reaped, so that the
// next test starts clean. Tests still check the pids their programs wrote
// (pid_in, process_gone): that a process is gone when the run returns, not
// only by the end of the test. A derived fixture whose members may still have
// runs in flight (a background hook) ends them in its own TearDown, before
// calling this one.
class NothingLeftBehind : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The first run in a process opens the supervisor image, kept open for good: not a leak.
    TempDir dir;
    run_process({.program = write_script(dir / "warm-up", "exit 0\n")});
  }
  void SetUp() override {
    descriptors_ = open_descriptor_count();
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0) << "cannot become a subreaper: " << std::strerror(errno);
  }
  void TearDown() override {
    EXPECT_EQ(open_descriptor_count(), descriptors_) << "a file descriptor was left open";
    std::string left;
    // Killing a leftover may orphan its own children onto this process: rounds until none is left.
    for (int round = 0; round < 100; ++round) {
      const auto children = children_of_this_process();
      if (children.empty()) break;
      for (const auto& [pid, command] : children) {
        left += "\n  " + std::to_string(pid) + ": " + command;
        ::kill(pid, SIGKILL);
      }
      for (const auto& [pid, command] : children) ::waitpid(pid, nullptr, 0);
    }
    EXPECT_EQ(left, "") << "processes the test's runs started were left running or unreaped (killed now)";
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // The pid a program wrote into the file `name` (waiting a few seconds for it).
  pid_t pid_in(const std::string& name) const {
    const std::string text = wait_for_file(dir_ / name);
    if (text.empty()) ADD_FAILURE() << name << " was never written";
    return text.empty() ? 0 : std::stoi(text);
  }

  // For a process a test lets outlive its run on purpose (a detached one):
  // kills it and reaps it as its adoptive parent. False when it was not this
  // process's to reap.
  static bool kill_adopted(pid_t pid) {
    ::kill(pid, SIGKILL);
    return ::waitpid(pid, nullptr, 0) == pid;
  }

  // Waits (a few seconds at most) until every process this test adopted has
  // ended, and reaps them: true when none is left.
  static bool adopted_processes_end() {
    for (int i = 0; i < 500; ++i) {
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
      if (children_of_this_process().empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  TempDir dir_;

 private:
  int descriptors_ = 0;
};

// sh lines: start `sleep 60` as a process in a new session (setsid), detached
// from our pipes and deaf to SIGTERM, and wait until its pid is in `pid_file`.
inline std::string start_setsid_sleeper(const std::string& pid_file) {
  return "setsid sh -c 'echo $$ > " + pid_file + "; trap \"\" TERM; exec sleep 60' </dev/null >/dev/null 2>&1 &\n"
         "until [ -s " + pid_file + " ]; do sleep 0.01; done\n";
}

// A hook (hookbus protocol) that denies every tool_call with "in NAME", NAME
// being the context.workspace of the payload it was given; `before_answering`
// (shell) runs after it read the payload.
inline std::string hook_naming_its_workspace(std::string_view before_answering = {}) {
  return "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n"
         "name=$(sed -n 's/.*\"workspace\":\"\\([^\"]*\\)\".*/\\1/p')\n" +
         std::string(before_answering) +
         "echo \"{\\\"decision\\\": \\\"deny\\\", \\\"reason\\\": \\\"in $name\\\"}\"\n";
}

}  // namespace hookbus::testing
