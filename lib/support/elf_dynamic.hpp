#pragma once
// What the dynamic loader reads from a shared library to find the libraries
// it loads with it: the dynamic section's DT_NEEDED (and the filters
// DT_FILTER, DT_AUXILIARY, which load libraries too), DT_RPATH and
// DT_RUNPATH. A plugin of a project is checked against them before it loads
// (lib/plugins/plugin_libraries.hpp).
//
// The file may be hostile: every read is bounded and checked, and what the
// reader cannot read exactly as the loader would is an error, never a guess.
// The dynamic section and its strings are read where the loader reads them,
// in memory as the loadable segments map the file (PT_DYNAMIC's p_vaddr and
// DT_STRTAB are addresses), not at file offsets a crafted file could make
// disagree with them. ELF64 little-endian only.

#include <hookbus/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace hookbus::detail {

// Why a file's dynamic section cannot be read, without the file's name.
class ElfError : public Error {
 public:
  using Error::Error;
};

struct ElfDynamic {
  std::vector<std::string> needed{};   // DT_NEEDED, DT_FILTER and DT_AUXILIARY, in the order the section lists them
  std::vector<std::string> rpath{};    // the last DT_RPATH (as the loader takes it), split at ':'
  std::vector<std::string> runpath{};  // the last DT_RUNPATH, split at ':'
  bool operator==(const ElfDynamic&) const = default;
};

// Bounds that keep reading a hostile file cheap. A shared library has about
// ten program headers and a few dozen dynamic entries.
inline constexpr std::size_t max_elf_program_headers = 256;
inline constexpr std::size_t max_elf_dynamic_entries = 4096;
inline constexpr std::size_t max_elf_string = 4096;  // a library name or a run path: PATH_MAX

// Up to `size` bytes of the file from `offset` on (fewer at its end).
using ElfFileReader = std::function<std::string(std::uint64_t offset, std::size_t size)>;

// Reads the dynamic section of the ELF file that `read` reads; `page_size`
// is the size the loader maps segments in. Throws ElfError saying what it
// could not read: not ELF64 little-endian, not a shared object, headers or
// addresses outside the file, overlapping segments, a string without its end.
ElfDynamic read_elf_dynamic(const ElfFileReader& read, std::uint64_t page_size);

// The same, of a regular file (opened without following it into a FIFO or a
// device), with the system's page size. Throws ElfError.
ElfDynamic read_elf_dynamic(const std::filesystem::path& file);

}  // namespace hookbus::detail
