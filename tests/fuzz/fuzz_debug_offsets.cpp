// libFuzzer target: a target process may put anything in its _Py_DebugOffsets table.
// Any bytes must give a layout in which every field the readers use lies inside its
// structure (tests/support/layout_bounds.h lists them), or an Error; never a crash.
// An accepted layout then drives the dict reader (threading's registry, thread names) and
// dump --locals' readers (a frame's variables, any object's value) over
// memory made of the same bytes, every word turned into a pointer back into it: whatever
// the table and the memory say, it reads nothing outside what it copied (ASan).
// Input: 4 bytes of Py_Version (little endian), then the table.
#include "core/remote/frame_locals.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_dict.h"
#include "core/remote/value_describer.h"
#include "tests/support/layout_bounds.h"
#include "tests/unit/remote/fake_memory.h"

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
    constexpr uint64_t kBase = 0x10000000, kSize = 1 << 14;
    gilscope::test::FakeMemory mem;
    uint8_t* region = mem.map(kBase, kSize);
    for (size_t i = 0; i < kSize; ++i)
        region[i] = data[i % size];
    for (size_t i = 0; i + 8 <= kSize; i += 16) { // every other word points into the region
        uint64_t word = 0;
        std::memcpy(&word, region + i, 8);
        word = kBase + (word % kSize & ~uint64_t{7});
        std::memcpy(region + i, &word, 8);
    }
    gilscope::remote::RemoteDicts dicts(mem, *layout);
    dicts.beginRefresh();
    uint64_t value = 0;
    (void)dicts.lookup(kBase + (data[0] % 64) * 16, "_active", value);
    (void)dicts.attribute(kBase + (data[1] % 64) * 16, "_name", value);
    std::vector<gilscope::remote::DictEntry> entries;
    (void)dicts.entries(kBase + (data[2] % 64) * 16, entries);
    (void)dicts.smallInt(kBase + (data[3] % 64) * 16, value);
    (void)dicts.typeName(kBase + 32);
    gilscope::remote::ValueDescriber values(dicts, *layout);
    (void)values.describe(kBase + (data[0] % 128) * 8);
    gilscope::remote::FrameLocalsReader locals(mem, *layout);
    locals.beginThread();
    (void)locals.read(kBase + (data[1] % 64) * 16, kBase + (data[2] % 64) * 16);
    return 0;
}
