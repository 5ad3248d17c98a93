#include <memtune/compile/cubin_elf.hpp>

#include <cstdint>
#include <cstring>
#include <elf.h>
#include <stdexcept>

namespace memtune {
namespace {

// A CUBIN's section headers, each read bounds-checked from the bytes.
class Sections {
public:
  explicit Sections(const std::vector<char>& cubin) : bytes_(cubin) {
    if (cubin.size() < sizeof(Elf64_Ehdr) || std::memcmp(cubin.data(), ELFMAG, SELFMAG) != 0 ||
        cubin[EI_CLASS] != ELFCLASS64)
      fail();
    std::memcpy(&header_, cubin.data(), sizeof header_);
  }
  [[noreturn]] static void fail() { throw std::invalid_argument("not a 64-bit ELF CUBIN"); }
  [[nodiscard]] std::size_t count() const { return header_.e_shnum; }
  [[nodiscard]] Elf64_Shdr at(std::size_t i) const {
    Elf64_Shdr s;
    const std::size_t offset = header_.e_shoff + i * sizeof(Elf64_Shdr);
    if (i >= header_.e_shnum || offset + sizeof s > bytes_.size()) fail();
    std::memcpy(&s, bytes_.data() + offset, sizeof s);
    if (s.sh_type != SHT_NOBITS && (s.sh_offset > bytes_.size() || s.sh_size > bytes_.size() - s.sh_offset)) fail();
    return s;
  }
  // The name of section `s`, from the section-name string table.
  [[nodiscard]] std::string name(const Elf64_Shdr& s) const { return string_in(at(header_.e_shstrndx), s.sh_name); }
  [[nodiscard]] std::string string_in(const Elf64_Shdr& table, std::size_t offset) const {
    if (table.sh_type == SHT_NOBITS || offset >= table.sh_size) return {}; // NOBITS: no bytes in the file
    const char* p = bytes_.data() + table.sh_offset + offset;
    return {p, strnlen(p, table.sh_size - offset)};
  }
  [[nodiscard]] const char* data(const Elf64_Shdr& s) const { return bytes_.data() + s.sh_offset; }

private:
  const std::vector<char>& bytes_;
  Elf64_Ehdr header_{};
};

// The records of an .nv.info section, each 4-byte aligned: one byte of
// format, one of attribute, then by format a value in the next 2 bytes
// (EIFMT_NVAL 1: none, EIFMT_BVAL 2: one byte, EIFMT_HVAL 3: 16 bits) or a
// 16-bit size and that many bytes (EIFMT_SVAL 4).
constexpr std::uint8_t kFormatSizedValue = 4;
constexpr std::uint8_t kAttributeMaxThreads = 0x05; // EIATTR_MAX_THREADS

} // namespace

std::vector<std::string> cubin_kernel_symbols(const std::vector<char>& cubin) {
  const Sections sections(cubin);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < sections.count(); ++i) {
    const Elf64_Shdr symtab = sections.at(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    const Elf64_Shdr strtab = sections.at(symtab.sh_link);
    for (std::size_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, sections.data(symtab) + at, sizeof sym);
      // STO_CUDA_ENTRY (0x10 in st_other) marks a __global__ function.
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || (sym.st_other & 0x10) == 0 || sym.st_name >= strtab.sh_size) continue;
      out.push_back(sections.string_in(strtab, sym.st_name));
    }
  }
  return out;
}

int cubin_max_threads_per_block(const std::vector<char>& cubin, const std::string& lowered_name) {
  const Sections sections(cubin);
  const std::string wanted = ".nv.info." + lowered_name;
  for (std::size_t i = 0; i < sections.count(); ++i) {
    const Elf64_Shdr info = sections.at(i);
    if (info.sh_type == SHT_NOBITS || sections.name(info) != wanted) continue; // NOBITS: no bytes to read
    const auto* p = reinterpret_cast<const std::uint8_t*>(sections.data(info));
    std::size_t at = 0;
    while (at + 2 <= info.sh_size) {
      const std::uint8_t format = p[at], attribute = p[at + 1];
      if (format >= 1 && format < kFormatSizedValue) {
        at += 4;
        continue;
      }
      if (format != kFormatSizedValue || at + 4 > info.sh_size) return 0; // a record this reader does not know
      std::uint16_t size = 0;
      std::memcpy(&size, p + at + 2, sizeof size);
      if (at + 4 + size > info.sh_size) return 0;
      if (attribute == kAttributeMaxThreads && size == 12) {
        std::uint32_t dims[3];
        std::memcpy(dims, p + at + 4, sizeof dims);
        const std::uint64_t threads = std::uint64_t{dims[0]} * dims[1] * dims[2];
        return threads > 0 && threads <= (1u << 20) ? static_cast<int>(threads) : 0;
      }
      at += (4u + size + 3u) & ~std::size_t{3}; // records are 4-byte aligned
    }
    return 0;
  }
  return 0;
}

} // namespace memtune
