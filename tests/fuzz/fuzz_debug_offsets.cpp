// libFuzzer target: a target process may put anything in its _Py_DebugOffsets table.
// Any bytes must give a layout whose offsets all lie inside their structures, or an
// Error; never a crash. Input: 4 bytes of Py_Version (little endian), then the table.
#include "core/remote/python_layout.h"

#include <cstdint>
#include <cstring>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4) return 0;
    uint32_t versionHex = 0;
    std::memcpy(&versionHex, data, 4);
    const std::span<const uint8_t> table(data + 4, size - 4);
    auto layout = gilscope::remote::layoutFromDebugOffsets(table, versionHex);
    if (!layout.ok()) {
        if (layout.error().message.empty()) __builtin_trap(); // every refusal says why
        return 0;
    }
    // What the walker relies on before it reads a single frame.
    const auto& l = *layout;
    if (l.tsSize > 4096 || l.frSize > 256 || l.coSize > 1024) __builtin_trap();
    if (l.frPrevious + 8 > l.frSize || l.coFilename + 8 > l.coSize) __builtin_trap();
    return 0;
}
