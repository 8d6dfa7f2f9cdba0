#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gilscope::remote {

// A read-only, bounds-checked view of a 64-bit little-endian ELF file (x86_64). Enough to
// find CPython's runtime: symbols, sections, PT_LOADs.
//
// The file is read with pread, never mapped: it is the target's, and a target that
// truncates a mapped file while gilscope reads it would end gilscope with SIGBUS. A read
// past the file's end now is a short read, i.e. a lookup that finds nothing.
// Not safe for concurrent use (the symbol tables are read once, on first use).
class ElfImage {
public:
    static Result<ElfImage> open(const std::string& path);
    // A file already open (a target's, through its door); `name` is for messages.
    static Result<ElfImage> open(UniqueFd fd, const std::string& name);

    ElfImage(ElfImage&&) noexcept = default;
    ElfImage& operator=(ElfImage&&) noexcept = default;
    ElfImage(const ElfImage&) = delete;
    ElfImage& operator=(const ElfImage&) = delete;

    struct Symbol {
        uint64_t value = 0;
        uint64_t size = 0;
    };
    struct Section {
        uint64_t addr = 0;   // sh_addr (link-time virtual address)
        uint64_t offset = 0; // file offset
        uint64_t size = 0;
        bool hasFileData = false; // false for SHT_NOBITS
    };
    struct Load {
        uint64_t vaddr = 0, offset = 0, filesz = 0, memsz = 0, align = 0;
    };

    // Looks in .dynsym first (survives stripping), then .symtab.
    std::optional<Symbol> findSymbol(std::string_view name) const;
    std::optional<Section> findSection(std::string_view name) const;
    const std::vector<Load>& loads() const { return loads_; }

    // File bytes at a link-time virtual address, when they lie inside a PT_LOAD's file data
    // (all `len` of them, or none).
    std::vector<uint8_t> bytesAtVaddr(uint64_t vaddr, uint64_t len) const;

    // The most a section read may take: a header claiming more is crafted.
    static constexpr uint64_t kMaxSectionBytes = uint64_t(1) << 30;

private:
    ElfImage(UniqueFd fd, uint64_t size) : fd_(std::move(fd)), size_(size) {}
    std::optional<Symbol> findInTable(std::string_view table, std::string_view strtab,
                                      std::string_view name) const;
    // The file's bytes [offset, offset + len), all of them or none.
    std::vector<uint8_t> fileBytes(uint64_t offset, uint64_t len) const;
    // A section's bytes, read once.
    const std::vector<uint8_t>& sectionBytes(std::string_view name) const;

    UniqueFd fd_;
    uint64_t size_ = 0; // at open: nothing past it is read
    std::vector<std::pair<std::string, Section>> sections_;
    std::vector<Load> loads_;
    mutable std::map<std::string, std::vector<uint8_t>, std::less<>> sectionCache_;
};

} // namespace gilscope::remote
