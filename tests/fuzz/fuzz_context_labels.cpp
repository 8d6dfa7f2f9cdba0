// libFuzzer target: --label-from reads a thread's contextvars.Context out of the target,
// which may put anything there. The input becomes the memory the reader walks: each word
// is raw bytes, a pointer back into it, a pointer to one of the HAMT's, a Context's, a
// ContextVar's or a str's type, or a small number, so the fuzzer builds trees, cycles and
// lies of every size. Whatever it builds, the read is bounded, stays inside what it
// copied (ASan) and gives values of at most kMaxLabelValueBytes, or says it could not.
#include "core/remote/context_labels.h"
#include "core/remote/python_layout.h"
#include "tests/unit/remote/fake_memory.h"

#include <cstdint>
#include <cstring>

namespace {

constexpr uint64_t kBase = 0x10000000, kData = 1 << 13, kTypeSize = 64;
constexpr const char* kTypes[] = {"hamt_bitmap_node",
                                  "hamt_array_node",
                                  "hamt_collision_node",
                                  "hamt",
                                  "_contextvars.Context",
                                  "_contextvars.ContextVar",
                                  "str",
                                  "int",
                                  "NoneType",
                                  "tuple"};
constexpr size_t kTypeCount = sizeof kTypes / sizeof kTypes[0];

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gilscope;
    if (size < 8) return 0;
    static const remote::PythonLayout layout = remote::builtinLayout(0x030C01F0u).value();
    test::FakeMemory mem;
    uint8_t* region = mem.map(kBase, kData);
    for (size_t i = 0; i + 8 <= kData; i += 8) {
        uint64_t v = 0;
        for (size_t b = 0; b < 8; ++b)
            v |= uint64_t(data[(i + b) % size]) << (8 * b);
        switch (v & 3) {
        case 1:
            v = kBase + ((v >> 2) % kData & ~uint64_t{7});
            break;
        case 2:
            v = kBase + kData + kTypeSize * ((v >> 2) % kTypeCount);
            break;
        case 3:
            v = (v >> 2) % 70;
            break; // a count, a size, a bitmap
        default:
            break;
        }
        std::memcpy(region + i, &v, 8);
    }
    // The types, each with its name (tp_name at 24) inside its own 64 bytes.
    uint8_t* types = mem.map(kBase + kData, kTypeSize * kTypeCount);
    for (size_t t = 0; t < kTypeCount; ++t) {
        uint8_t* type = types + kTypeSize * t;
        const uint64_t name = kBase + kData + kTypeSize * t + 32;
        std::memcpy(type + 24, &name, 8);
        std::strncpy(reinterpret_cast<char*>(type + 32), kTypes[t], kTypeSize - 33);
    }
    remote::ContextLabels labels(mem, layout, {{"route", "route"}, {"t", "tenant"}});
    std::vector<std::optional<std::string>> values;
    const uint64_t context = kBase + (data[0] % 64) * 8;
    labels.read(context, values);
    if (values.size() != 2) __builtin_trap();
    for (const auto& v : values)
        if (v && v->size() > kMaxLabelValueBytes) __builtin_trap();
    // The same memory proves the same read.
    const remote::ContextLabels::Proof proof = labels.lastProof();
    if (proof.complete && !labels.stillHolds(proof)) __builtin_trap();
    return 0;
}
