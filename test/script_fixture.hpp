#pragma once
// Test helpers for the external-hook tests: a temporary directory that removes
// itself, executables written into it, a look at other processes, and a
// fixture that checks a test's runs left nothing behind.
#include <hookbus/process.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

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

// SIGKILL is delivered asynchronously: waits (at most a few seconds) for it to land.
inline bool process_dies(pid_t pid) {
  for (int i = 0; i < 500 && process_alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !process_alive(pid);
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

// Each test of a fixture derived from this ends by checking that its runs left
// nothing behind: no file descriptor of ours open, no child of this process
// (zombie or not). Tests check the processes their programs started through
// the pids those wrote (pid_in, process_gone).
class NothingLeftBehind : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The first run in a process opens the supervisor image, kept open for good: not a leak.
    TempDir dir;
    run_process({.program = write_script(dir / "warm-up", "exit 0\n")});
  }
  void SetUp() override { descriptors_ = open_descriptor_count(); }
  void TearDown() override {
    EXPECT_EQ(open_descriptor_count(), descriptors_) << "a file descriptor was left open";
    errno = 0;
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a child of this process was left";
    EXPECT_EQ(errno, ECHILD);
  }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // The pid a program wrote into the file `name` (waiting a few seconds for it).
  pid_t pid_in(const std::string& name) const {
    const std::string text = wait_for_file(dir_ / name);
    if (text.empty()) ADD_FAILURE() << name << " was never written";
    return text.empty() ? 0 : std::stoi(text);
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

}  // namespace hookbus::testing
