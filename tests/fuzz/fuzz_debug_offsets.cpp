// libFuzzer target: a target process may put anything in its _Py_DebugOffsets table.
// Any bytes must give a layout in which every field the readers use lies inside its
// structure (tests/support/layout_bounds.h lists them), or an Error; never a crash.
// Input: 4 bytes of Py_Version (little endian), then the table.
#include "core/remote/python_layout.h"
#include "tests/support/layout_bounds.h"

#include <cstdint>
#include <cstdio>
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
    if (const char* field = gilscope::test::fieldOutsideItsStruct(*layout)) {
        std::fprintf(stderr, "accepted a layout with %s outside its structure\n", field);
        __builtin_trap();
    }
    return 0;
}
