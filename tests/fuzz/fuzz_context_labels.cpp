// libFuzzer target: --label-from reads a thread's contextvars.Context out of the target,
// which may put anything there. The input becomes the memory the reader walks: each word
// is raw bytes, a pointer back into it, a pointer to one of the HAMT's, a Context's, a
// ContextVar's or a str's type, or a small number, so the fuzzer builds trees, cycles and
// lies of every size. Whatever it builds, the read is bounded, stays inside what it
// copied (ASan) and gives values of at most kMaxLabelValueBytes, or says it could not.
#include "core/remote/context_labels.h"
#include "core/remote/python_layout.h"
#include "tests/fuzz/hostile_words.h"
#include "tests/fuzz/label_read_checks.h"

#include <cstdint>

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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gilscope;
    if (size < 8) return 0;
    static const remote::PythonLayout layout = remote::builtinLayout(0x030C01F0u).value();
    test::FakeMemory mem;
    test::fillHostileWords(mem, kBase, kData, data, size, {kBase + kData, kTypeSize, kTypes}, 70);
    remote::ContextLabels labels(mem, layout, {{"route", "route"}, {"t", "tenant"}});
    std::vector<std::optional<std::string>> values;
    const uint64_t context = kBase + (data[0] % 64) * 8;
    labels.read(context, values);
    test::checkLabelRead(labels, values, 2);
    return 0;
}
