#include "core/remote/elf_image.h"

#include "core/remote/struct_view.h"
#include "core/util/unique_fd.h"

#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace gilscope::remote {

namespace {

template <typename T>
bool readStruct(const std::vector<uint8_t>& bytes, uint64_t offset, T& out) {
    const auto field = StructView(bytes).get<T>(offset);
    if (field) out = *field;
    return field.has_value();
}

} // namespace

Result<ElfImage> ElfImage::open(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return makeError(ErrorKind::Io, "cannot open " + path + ": " + std::strerror(errno));
    return open(std::move(fd), path);
}

Result<ElfImage> ElfImage::open(UniqueFd fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return makeError(ErrorKind::NotPython, path + " is not an ELF file");
    ElfImage img(std::move(fd), static_cast<uint64_t>(st.st_size));

    Elf64_Ehdr eh{};
    if (!readStruct(img.fileBytes(0, sizeof eh), 0, eh) ||
        std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return makeError(ErrorKind::NotPython, path + " is not an ELF file");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return makeError(ErrorKind::NotPython, path + " is not a 64-bit little-endian ELF file");
    // An ELF64 file's table entries have exactly these sizes. Any other size is a crafted
    // file: with e_phentsize 0, 65,535 copies of one header made every lookup quadratic.
    if ((eh.e_phnum != 0 && eh.e_phentsize != sizeof(Elf64_Phdr)) ||
        (eh.e_shnum != 0 && eh.e_shentsize != sizeof(Elf64_Shdr)))
        return makeError(ErrorKind::NotPython, path + " has malformed ELF header tables");

    const auto phdrs = img.fileBytes(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr));
    for (uint16_t i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph{};
        if (!readStruct(phdrs, uint64_t{i} * sizeof ph, ph)) break;
        if (ph.p_type == PT_LOAD)
            img.loads_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_align});
    }
    const auto shdrs = img.fileBytes(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr));
    Elf64_Shdr namesHdr{};
    const bool haveNames = eh.e_shstrndx != SHN_UNDEF &&
                           readStruct(shdrs, uint64_t{eh.e_shstrndx} * sizeof namesHdr, namesHdr);
    const auto names = haveNames && namesHdr.sh_size <= kMaxSectionBytes
                           ? img.fileBytes(namesHdr.sh_offset, namesHdr.sh_size)
                           : std::vector<uint8_t>{};
    for (uint16_t i = 0; haveNames && i < eh.e_shnum; ++i) {
        Elf64_Shdr sh{};
        if (!readStruct(shdrs, uint64_t{i} * sizeof sh, sh)) break;
        std::string name;
        if (sh.sh_name < names.size()) {
            const char* p = reinterpret_cast<const char*>(names.data() + sh.sh_name);
            name.assign(p, strnlen(p, names.size() - sh.sh_name));
        }
        Section s{sh.sh_addr, sh.sh_offset, sh.sh_size, sh.sh_type != SHT_NOBITS};
        img.sections_.emplace_back(std::move(name), s);
    }
    return img;
}

std::vector<uint8_t> ElfImage::fileBytes(uint64_t offset, uint64_t len) const {
    if (len > kMaxSectionBytes || offset > size_ || size_ - offset < len) return {};
    std::vector<uint8_t> bytes(static_cast<size_t>(len));
    size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = ::pread(fd_.get(), bytes.data() + got, bytes.size() - got,
                                  static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return {}; // an error, or the file ends sooner (it may have shrunk)
        got += static_cast<size_t>(n);
    }
    return bytes;
}

const std::vector<uint8_t>& ElfImage::sectionBytes(std::string_view name) const {
    if (auto it = sectionCache_.find(name); it != sectionCache_.end()) return it->second;
    std::vector<uint8_t> bytes;
    if (const auto s = findSection(name); s && s->hasFileData)
        bytes = fileBytes(s->offset, s->size);
    return sectionCache_.emplace(std::string(name), std::move(bytes)).first->second;
}

std::optional<ElfImage::Section> ElfImage::findSection(std::string_view name) const {
    for (const auto& [n, s] : sections_)
        if (n == name) return s;
    return std::nullopt;
}

std::optional<ElfImage::Symbol> ElfImage::findInTable(std::string_view table,
                                                      std::string_view strtab,
                                                      std::string_view name) const {
    const std::vector<uint8_t>& syms = sectionBytes(table);
    const std::vector<uint8_t>& strs = sectionBytes(strtab);
    if (syms.empty() || strs.empty()) return std::nullopt;
    const uint64_t count = syms.size() / sizeof(Elf64_Sym);
    for (uint64_t i = 0; i < count; ++i) {
        Elf64_Sym sym{};
        if (!readStruct(syms, i * sizeof(Elf64_Sym), sym)) break;
        if (sym.st_name >= strs.size() || sym.st_shndx == SHN_UNDEF) continue;
        const char* p = reinterpret_cast<const char*>(strs.data() + sym.st_name);
        const size_t len = strnlen(p, strs.size() - sym.st_name);
        if (std::string_view(p, len) == name) return Symbol{sym.st_value, sym.st_size};
    }
    return std::nullopt;
}

std::optional<ElfImage::Symbol> ElfImage::findSymbol(std::string_view name) const {
    if (auto s = findInTable(".dynsym", ".dynstr", name)) return s;
    return findInTable(".symtab", ".strtab", name);
}

std::vector<uint8_t> ElfImage::bytesAtVaddr(uint64_t vaddr, uint64_t len) const {
    for (const Load& l : loads_) {
        if (vaddr >= l.vaddr && vaddr - l.vaddr < l.filesz && l.filesz - (vaddr - l.vaddr) >= len)
            return fileBytes(l.offset + (vaddr - l.vaddr), len);
    }
    return {};
}

} // namespace gilscope::remote
