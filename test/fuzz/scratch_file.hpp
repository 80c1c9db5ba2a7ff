#pragma once
// A file for targets whose reader takes a path: in a private directory made
// on first use and removed, with everything in it, when the fuzzer exits
// (libFuzzer ends a run with exit(), which runs this destructor).

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace hookbus::fuzz {

class ScratchFile {
 public:
  // `relative`: the file's path inside the directory (".hookbus/config.json").
  explicit ScratchFile(const std::filesystem::path& relative) {
    std::string pattern = (std::filesystem::temp_directory_path() / "hookbus-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    directory_ = pattern;
    file_ = directory_ / relative;
    std::filesystem::create_directories(file_.parent_path());
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }

  // Replaces the file's content; returns its path.
  const std::filesystem::path& write(std::string_view text) const {
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << text;
    return file_;
  }

 private:
  std::filesystem::path directory_;
  std::filesystem::path file_;
};

}  // namespace hookbus::fuzz
