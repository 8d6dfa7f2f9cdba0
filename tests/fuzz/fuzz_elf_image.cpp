// libFuzzer target: gilscope maps the target's executable and libpython, which another
// user may have crafted. Any bytes opened as an ELF image must give an image whose
// lookups stay in bounds, or an Error; never a crash.
#include "core/remote/elf_image.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const int fd = memfd_create("fuzz-elf", 0);
    if (fd < 0) return 0;
    if (ftruncate(fd, 0) != 0) return 0;
    if (pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
    const std::string path = "/proc/self/fd/" + std::to_string(fd);

    auto image = gilscope::remote::ElfImage::open(path);
    if (!image.ok()) return 0;
    // What the runtime locator asks of an image.
    uint64_t sum = 0;
    for (const char* name : {"_PyRuntime", "Py_Version", "_Py_DebugOffsets"})
        if (auto s = image->findSymbol(name)) sum += s->value + s->size;
    for (const char* name : {".PyRuntime", ".data", ".dynsym"})
        if (auto s = image->findSection(name)) {
            const auto bytes = image->bytesAtVaddr(s->addr, std::min<uint64_t>(s->size, 64));
            for (uint8_t b : bytes)
                sum += b;
        }
    for (const auto& load : image->loads()) {
        const auto bytes = image->bytesAtVaddr(load.vaddr, 16);
        for (uint8_t b : bytes)
            sum += b;
    }
    asm volatile("" : : "r"(sum)); // keeps the reads from being optimised away
    return 0;
}
