#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gilscope::remote {

// A read-only, bounds-checked view of a 64-bit little-endian ELF file (x86_64),
// mapped into memory. Enough to find CPython's runtime: symbols, sections, PT_LOADs.
class ElfImage {
public:
    static Result<ElfImage> open(const std::string& path);
    // A file already open (a target's, through its door); `name` is for messages.
    static Result<ElfImage> open(UniqueFd fd, const std::string& name);

    ElfImage(ElfImage&& o) noexcept;
    ElfImage& operator=(ElfImage&& o) noexcept;
    ElfImage(const ElfImage&) = delete;
    ElfImage& operator=(const ElfImage&) = delete;
    ~ElfImage();

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

    // File bytes at a link-time virtual address, when they lie inside a PT_LOAD's file data.
    std::span<const uint8_t> bytesAtVaddr(uint64_t vaddr, uint64_t len) const;

private:
    ElfImage() = default;
    std::optional<Symbol> findInTable(std::string_view table, std::string_view strtab,
                                      std::string_view name) const;
    std::span<const uint8_t> fileBytes(uint64_t offset, uint64_t len) const;

    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    std::vector<std::pair<std::string, Section>> sections_;
    std::vector<Load> loads_;
};

} // namespace gilscope::remote
