// Reading a shared library's dynamic section (support/elf_dynamic.hpp).
#include "support/elf_dynamic.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

namespace hookbus::detail {
namespace {

// Little-endian fields, whatever this machine's byte order.
std::uint64_t little_endian(std::string_view bytes, std::size_t at, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t i = size; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}
std::uint16_t u16(std::string_view bytes, std::size_t at) { return static_cast<std::uint16_t>(little_endian(bytes, at, 2)); }
std::uint32_t u32(std::string_view bytes, std::size_t at) { return static_cast<std::uint32_t>(little_endian(bytes, at, 4)); }
std::uint64_t u64(std::string_view bytes, std::size_t at) { return little_endian(bytes, at, 8); }

// a + b, or nullopt when it does not fit.
std::optional<std::uint64_t> sum(std::uint64_t a, std::uint64_t b) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b) return std::nullopt;
  return a + b;
}

struct Segment {  // a PT_LOAD
  std::uint64_t vaddr = 0, offset = 0, filesz = 0, memsz = 0;
};

// The file as the loader maps it: what is at an address, read from the file
// where the loadable segment holding it comes from.
class MappedImage {
 public:
  MappedImage(const ElfFileReader& read, std::vector<Segment> loads, std::uint64_t page_size)
      : read_(read), loads_(std::move(loads)) {
    // The loader maps whole pages, later segments over earlier ones: only
    // segments in address order on pages of their own say unambiguously where
    // each byte comes from (as every linker lays them out).
    const auto page_down = [&](std::uint64_t address) { return address - address % page_size; };
    for (const Segment& load : loads_)
      if (load.vaddr % page_size != load.offset % page_size)
        throw ElfError(fmt::format("a loadable segment's address {:#x} and file offset {:#x} are not aligned alike",
                                   load.vaddr, load.offset));
    for (std::size_t i = 1; i < loads_.size(); ++i)
      if (loads_[i - 1].vaddr + loads_[i - 1].memsz > page_down(loads_[i].vaddr))
        throw ElfError(fmt::format("its loadable segments at {:#x} and {:#x} overlap or are out of order",
                                   loads_[i - 1].vaddr, loads_[i].vaddr));
  }

  // Up to `max` bytes from `address` on, as far as the file backs the
  // segment holding it; `what` names them in an error.
  std::string bytes_at(std::uint64_t address, std::size_t max, std::string_view what) const {
    for (const Segment& load : loads_) {
      if (address < load.vaddr || address - load.vaddr >= load.filesz) continue;
      const std::uint64_t into = address - load.vaddr;
      const std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(max, load.filesz - into));
      std::string bytes = read_(load.offset + into, size);
      if (bytes.size() != size) throw ElfError(fmt::format("{} at {:#x} lies past the end of the file", what, address));
      return bytes;
    }
    throw ElfError(fmt::format("{} at {:#x} is not in the file part of any loadable segment", what, address));
  }

 private:
  const ElfFileReader& read_;
  std::vector<Segment> loads_;
};

std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string> entries;
  for (;;) {
    const auto colon = list.find(':');
    entries.emplace_back(list.substr(0, colon));
    if (colon == std::string_view::npos) return entries;
    list.remove_prefix(colon + 1);
  }
}

void check_header(std::string_view header) {
  if (header.size() < sizeof(Elf64_Ehdr) || header.substr(0, SELFMAG) != std::string_view(ELFMAG, SELFMAG))
    throw ElfError("is not an ELF file");
  if (header[EI_CLASS] != ELFCLASS64 || header[EI_DATA] != ELFDATA2LSB)
    throw ElfError("is not a 64-bit little-endian ELF file, the only kind hookbus reads");
  if (const std::uint16_t type = u16(header, offsetof(Elf64_Ehdr, e_type)); type != ET_DYN)
    throw ElfError(fmt::format("is not a shared object (ELF type {})", type));
  if (u16(header, offsetof(Elf64_Ehdr, e_phentsize)) != sizeof(Elf64_Phdr))
    throw ElfError("has program headers of another size than ELF64's");
}

}  // namespace

ElfDynamic read_elf_dynamic(const ElfFileReader& read, std::uint64_t page_size) {
  if (page_size == 0) throw ElfError("no page size");
  const std::string header = read(0, sizeof(Elf64_Ehdr));
  check_header(header);
  const std::uint64_t table = u64(header, offsetof(Elf64_Ehdr, e_phoff));
  const std::size_t count = u16(header, offsetof(Elf64_Ehdr, e_phnum));
  if (count > max_elf_program_headers)
    throw ElfError(fmt::format("has {} program headers, more than the {} read", count, max_elf_program_headers));
  const std::string headers = read(table, count * sizeof(Elf64_Phdr));
  if (headers.size() != count * sizeof(Elf64_Phdr)) throw ElfError("its program headers lie past the end of the file");

  std::vector<Segment> loads;
  std::optional<std::uint64_t> dynamic;  // PT_DYNAMIC's address
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view entry = std::string_view(headers).substr(i * sizeof(Elf64_Phdr), sizeof(Elf64_Phdr));
    const std::uint32_t type = u32(entry, offsetof(Elf64_Phdr, p_type));
    const Segment segment{u64(entry, offsetof(Elf64_Phdr, p_vaddr)), u64(entry, offsetof(Elf64_Phdr, p_offset)),
                          u64(entry, offsetof(Elf64_Phdr, p_filesz)), u64(entry, offsetof(Elf64_Phdr, p_memsz))};
    if (type == PT_DYNAMIC) {
      if (dynamic) throw ElfError("has two dynamic segments");
      dynamic = segment.vaddr;
    }
    if (type != PT_LOAD || segment.memsz == 0) continue;  // the loader maps nothing of an empty one
    if (segment.filesz > segment.memsz || !sum(segment.vaddr, segment.memsz) || !sum(segment.offset, segment.filesz))
      throw ElfError(fmt::format("has a loadable segment at {:#x} whose sizes do not fit", segment.vaddr));
    loads.push_back(segment);
  }
  ElfDynamic result;
  if (!dynamic) return result;  // links nothing (and the loader refuses it)
  const MappedImage image(read, std::move(loads), page_size);

  // The entries up to DT_NULL, as the loader walks them.
  const std::string entries = image.bytes_at(*dynamic, max_elf_dynamic_entries * sizeof(Elf64_Dyn), "the dynamic section");
  std::vector<std::uint64_t> needed;
  std::optional<std::uint64_t> strings, rpath, runpath;
  bool ended = false;
  for (std::size_t at = 0; at + sizeof(Elf64_Dyn) <= entries.size(); at += sizeof(Elf64_Dyn)) {
    const auto tag = static_cast<std::int64_t>(u64(entries, at + offsetof(Elf64_Dyn, d_tag)));
    const std::uint64_t value = u64(entries, at + offsetof(Elf64_Dyn, d_un));
    if (tag == DT_NULL) {
      ended = true;
      break;
    }
    if (tag == DT_NEEDED || tag == DT_FILTER || tag == DT_AUXILIARY) needed.push_back(value);
    if (tag == DT_STRTAB) strings = value;
    if (tag == DT_RPATH) rpath = value;
    if (tag == DT_RUNPATH) runpath = value;
  }
  if (!ended)
    throw ElfError(entries.size() == max_elf_dynamic_entries * sizeof(Elf64_Dyn)
                       ? fmt::format("its dynamic section has more than {} entries", max_elf_dynamic_entries)
                       : "its dynamic section has no end (DT_NULL) within its segment");
  if (runpath) rpath.reset();  // as the loader: DT_RPATH counts only without DT_RUNPATH
  if (!strings && (!needed.empty() || rpath || runpath)) throw ElfError("its dynamic section has no string table (DT_STRTAB)");

  const auto string_at = [&](std::uint64_t offset) {
    const auto address = sum(*strings, offset);
    if (!address) throw ElfError(fmt::format("a string of its dynamic section is at an offset ({:#x}) out of range", offset));
    const std::string bytes = image.bytes_at(*address, max_elf_string + 1, "a string of its dynamic section");
    const auto end = bytes.find('\0');
    if (end == std::string::npos)
      throw ElfError(fmt::format("a string of its dynamic section at {:#x} has no end within {} bytes", *address,
                                 max_elf_string));
    return bytes.substr(0, end);
  };
  for (const std::uint64_t offset : needed) result.needed.push_back(string_at(offset));
  if (rpath) result.rpath = split_path_list(string_at(*rpath));
  if (runpath) result.runpath = split_path_list(string_at(*runpath));
  return result;
}

ElfDynamic read_elf_dynamic(const std::filesystem::path& file) {
  // O_NONBLOCK: a FIFO put at the path must not hold the engine up.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw ElfError(fmt::format("cannot be read: {}", std::generic_category().message(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw ElfError("is not a regular file");
  const ElfFileReader read = [fd](std::uint64_t offset, std::size_t size) {
    if (offset > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max()) - size) return std::string();  // past any file
    std::string bytes(size, '\0');
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pread(fd, bytes.data() + done, size - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw ElfError(fmt::format("cannot be read: {}", std::generic_category().message(errno)));
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    return bytes;
  };
  return read_elf_dynamic(read, static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
}

}  // namespace hookbus::detail
