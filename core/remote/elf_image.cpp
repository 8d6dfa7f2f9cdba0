#include "core/remote/elf_image.h"

#include "core/remote/struct_view.h"
#include "core/util/unique_fd.h"

#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <utility>

namespace gilscope::remote {

namespace {

template <typename T>
bool readStruct(const uint8_t* data, size_t size, uint64_t offset, T& out) {
    const auto field = StructView(data, size).get<T>(offset);
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
    if (::fstat(fd.get(), &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr)))
        return makeError(ErrorKind::NotPython, path + " is not an ELF file");
    void* map =
        ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (map == MAP_FAILED)
        return makeError(ErrorKind::Io, "cannot map " + path + ": " + std::strerror(errno));
    ElfImage img;
    img.data_ = static_cast<const uint8_t*>(map);
    img.size_ = static_cast<size_t>(st.st_size);

    Elf64_Ehdr eh{};
    readStruct(img.data_, img.size_, 0, eh);
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return makeError(ErrorKind::NotPython, path + " is not a 64-bit little-endian ELF file");
    // An ELF64 file's table entries have exactly these sizes. Any other size is a crafted
    // file: with e_phentsize 0, 65,535 copies of one header made every lookup quadratic.
    if ((eh.e_phnum != 0 && eh.e_phentsize != sizeof(Elf64_Phdr)) ||
        (eh.e_shnum != 0 && eh.e_shentsize != sizeof(Elf64_Shdr)))
        return makeError(ErrorKind::NotPython, path + " has malformed ELF header tables");

    for (uint16_t i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph{};
        if (!readStruct(img.data_, img.size_, eh.e_phoff + uint64_t{i} * eh.e_phentsize, ph)) break;
        if (ph.p_type == PT_LOAD)
            img.loads_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_align});
    }
    Elf64_Shdr strtabHdr{};
    const bool haveNames =
        eh.e_shstrndx != SHN_UNDEF &&
        readStruct(img.data_, img.size_, eh.e_shoff + uint64_t{eh.e_shstrndx} * eh.e_shentsize,
                   strtabHdr);
    for (uint16_t i = 0; haveNames && i < eh.e_shnum; ++i) {
        Elf64_Shdr sh{};
        if (!readStruct(img.data_, img.size_, eh.e_shoff + uint64_t{i} * eh.e_shentsize, sh)) break;
        std::string name;
        const uint64_t nameOff = strtabHdr.sh_offset + sh.sh_name;
        if (nameOff < img.size_) {
            const char* p = reinterpret_cast<const char*>(img.data_ + nameOff);
            name.assign(p, strnlen(p, img.size_ - nameOff));
        }
        Section s{sh.sh_addr, sh.sh_offset, sh.sh_size, sh.sh_type != SHT_NOBITS};
        img.sections_.emplace_back(std::move(name), s);
    }
    return img;
}

ElfImage::ElfImage(ElfImage&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)),
      sections_(std::move(o.sections_)), loads_(std::move(o.loads_)) {
}

ElfImage& ElfImage::operator=(ElfImage&& o) noexcept {
    if (this != &o) {
        if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
        data_ = std::exchange(o.data_, nullptr);
        size_ = std::exchange(o.size_, 0);
        sections_ = std::move(o.sections_);
        loads_ = std::move(o.loads_);
    }
    return *this;
}

ElfImage::~ElfImage() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::span<const uint8_t> ElfImage::fileBytes(uint64_t offset, uint64_t len) const {
    if (offset > size_ || size_ - offset < len) return {};
    return {data_ + offset, static_cast<size_t>(len)};
}

std::optional<ElfImage::Section> ElfImage::findSection(std::string_view name) const {
    for (const auto& [n, s] : sections_)
        if (n == name) return s;
    return std::nullopt;
}

std::optional<ElfImage::Symbol> ElfImage::findInTable(std::string_view table,
                                                      std::string_view strtab,
                                                      std::string_view name) const {
    const auto syms = findSection(table);
    const auto strs = findSection(strtab);
    if (!syms || !strs || !syms->hasFileData) return std::nullopt;
    const auto strBytes = fileBytes(strs->offset, strs->size);
    if (strBytes.empty()) return std::nullopt;
    const uint64_t count = syms->size / sizeof(Elf64_Sym);
    for (uint64_t i = 0; i < count; ++i) {
        Elf64_Sym sym{};
        if (!readStruct(data_, size_, syms->offset + i * sizeof(Elf64_Sym), sym)) break;
        if (sym.st_name >= strBytes.size() || sym.st_shndx == SHN_UNDEF) continue;
        const char* p = reinterpret_cast<const char*>(strBytes.data() + sym.st_name);
        const size_t len = strnlen(p, strBytes.size() - sym.st_name);
        if (std::string_view(p, len) == name) return Symbol{sym.st_value, sym.st_size};
    }
    return std::nullopt;
}

std::optional<ElfImage::Symbol> ElfImage::findSymbol(std::string_view name) const {
    if (auto s = findInTable(".dynsym", ".dynstr", name)) return s;
    return findInTable(".symtab", ".strtab", name);
}

std::span<const uint8_t> ElfImage::bytesAtVaddr(uint64_t vaddr, uint64_t len) const {
    for (const Load& l : loads_) {
        if (vaddr >= l.vaddr && vaddr - l.vaddr < l.filesz && l.filesz - (vaddr - l.vaddr) >= len)
            return fileBytes(l.offset + (vaddr - l.vaddr), len);
    }
    return {};
}

} // namespace gilscope::remote
