#pragma once
// Test helpers for the external-hook tests: a temporary directory that removes
// itself, executables written into it, and a look at other processes.
#include <gtest/gtest.h>

#include <sys/stat.h>

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

}  // namespace hookbus::testing
