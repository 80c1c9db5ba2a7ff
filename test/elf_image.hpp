#pragma once
// A shared object as small as the dynamic loader's reading of it allows, made
// in memory: an ELF64 little-endian header, three program headers (PT_LOAD
// mapping the whole file at address 0, PT_DYNAMIC, and a PT_NULL a test may
// make into something else), the dynamic section and its strings. The ELF reader's tests change its fields to make it hostile;
// the fuzz target's seeds start from it (lib/support/elf_dynamic.hpp).
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace hookbus::testing {

struct ElfImage {
  std::string bytes;
  // Where the fields tests change are.
  static constexpr std::size_t load_header = sizeof(Elf64_Ehdr);
  static constexpr std::size_t dynamic_header = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  static constexpr std::size_t spare_header = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
  static constexpr std::size_t dynamic = sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr);
  std::size_t strings = 0;  // the string table's offset (and address)

  template <class T>
  void put(std::size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
  }
};

inline ElfImage elf_image(const std::vector<std::string>& needed, const std::optional<std::string>& runpath,
                          const std::optional<std::string>& rpath = std::nullopt) {
  std::string strings(1, '\0');
  const auto add_string = [&](const std::string& text) {
    const std::size_t at = strings.size();
    strings += text;
    strings += '\0';
    return at;
  };
  std::vector<Elf64_Dyn> entries;
  for (const auto& name : needed) entries.push_back({DT_NEEDED, {add_string(name)}});
  if (runpath) entries.push_back({DT_RUNPATH, {add_string(*runpath)}});
  if (rpath) entries.push_back({DT_RPATH, {add_string(*rpath)}});
  ElfImage image;
  image.strings = ElfImage::dynamic + (entries.size() + 2) * sizeof(Elf64_Dyn);
  entries.push_back({DT_STRTAB, {image.strings}});
  entries.push_back({DT_NULL, {0}});
  image.bytes.assign(image.strings + strings.size(), '\0');

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 3;
  const Elf64_Phdr load{PT_LOAD, PF_R, 0, 0, 0, image.bytes.size(), image.bytes.size(), 0x1000};
  const Elf64_Phdr dynamic{PT_DYNAMIC, PF_R, ElfImage::dynamic, ElfImage::dynamic, ElfImage::dynamic,
                           entries.size() * sizeof(Elf64_Dyn), entries.size() * sizeof(Elf64_Dyn), 8};
  image.put(0, header);
  image.put(ElfImage::load_header, load);
  image.put(ElfImage::dynamic_header, dynamic);
  for (std::size_t i = 0; i < entries.size(); ++i) image.put(ElfImage::dynamic + i * sizeof(Elf64_Dyn), entries[i]);
  std::memcpy(image.bytes.data() + image.strings, strings.data(), strings.size());
  return image;
}

}  // namespace hookbus::testing
