// The ELF reader a project's plugin is checked with before it loads
// (support/elf_dynamic.hpp): the input is the file. Only ElfError may be
// thrown, every read stays within the file, and what is read keeps to the
// reader's bounds.
#include "oracle.hpp"

#include "support/elf_dynamic.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  const std::string_view file = fuzz::text_of(data, size);
  detail::ElfDynamic dynamic;
  try {
    dynamic = detail::read_elf_dynamic(
        [&](std::uint64_t offset, std::size_t length) {
          return offset >= file.size() ? std::string() : std::string(file.substr(offset, length));
        },
        4096);
  } catch (const detail::ElfError&) {
    return 0;
  }
  if (dynamic.needed.size() > detail::max_elf_dynamic_entries)
    fuzz::broken("more libraries than dynamic entries", std::to_string(dynamic.needed.size()));
  for (const auto* list : {&dynamic.needed, &dynamic.rpath, &dynamic.runpath})
    for (const std::string& text : *list)
      if (text.size() > detail::max_elf_string || text.find('\0') != std::string::npos)
        fuzz::broken("a string past its bound or its end", text);
  if (!dynamic.rpath.empty() && !dynamic.runpath.empty()) fuzz::broken("DT_RPATH read beside DT_RUNPATH", "");
  return 0;
}
