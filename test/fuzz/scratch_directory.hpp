#pragma once
// A directory for targets whose reader takes a path or a project: private,
// made on first use, and removed with everything in it when the fuzzer exits
// (libFuzzer ends a run with exit(), which runs this destructor).

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace hookbus::fuzz {

class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hookbus-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    // Physical: readers that resolve links compare what they find with it.
    root_ = std::filesystem::canonical(pattern);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  const std::filesystem::path& root() const { return root_; }

  // Replaces the content of the file at `relative` (".hookbus/config.json"),
  // making its directories; returns its path.
  std::filesystem::path write(const std::filesystem::path& relative, std::string_view text) const {
    const std::filesystem::path file = root_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return file;
  }

 private:
  std::filesystem::path root_;
};

}  // namespace hookbus::fuzz
