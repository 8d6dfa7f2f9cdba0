// libFuzzer target: --label-from KEY=FUNC:EXPR reads a frame's variable out of the target
// and follows its attributes and str keys, through objects the target may have made
// anything. The input becomes the memory from the frame on: each word is raw bytes, a
// pointer back into it, a pointer to a type (dict, str, int, tuple, cell, an instance's), or
// a small number; the types' sizes, flags and dict offsets come from the input too. The
// code object names its variables truly (a lie there is FrameLocalsReader's fuzz case in
// test_value_describer). Whatever it builds, the read is bounded, stays inside what it
// copied (ASan), and gives values of at most kMaxLabelValueBytes, or says it could not.
#include "core/remote/frame_labels.h"
#include "core/remote/python_layout.h"
#include "tests/fuzz/hostile_words.h"
#include "tests/fuzz/label_read_checks.h"
#include "tests/unit/remote/fake_python.h"

#include <cstdint>
#include <iterator>

namespace {

constexpr uint64_t kBase = 0x10000000, kData = 1 << 13, kTypeSize = 512;
constexpr const char* kTypes[] = {"dict", "str", "int", "NoneType", "tuple", "cell", "Request"};
constexpr uint64_t kTypes0 = kBase + kData;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gilscope;
    if (size < 8) return 0;
    static const remote::PythonLayout layout = remote::builtinLayout(0x030C01F0u).value();
    test::FakeMemory mem;
    test::fillHostileWords(mem, kBase, kData, data, size, {kTypes0, kTypeSize, kTypes}, 600);
    // The types' sizes, flags and dict offsets from the input too (small).
    for (size_t t = 0; t < std::size(kTypes); ++t)
        for (uint64_t at = 32; at < 400; at += 8)
            mem.put<uint64_t>(kTypes0 + kTypeSize * t + at,
                              test::inputWord(data, size, t * 97 + at) % 1024);
    // A true code object: variables self and environ.
    test::FakePython py(mem, layout);
    const uint64_t code = py.code("handler", 1);
    const uint64_t names = py.object("tuple", 64);
    mem.put<int64_t>(names + layout.varSize, 2);
    uint64_t self = py.str("self"), environ = py.str("environ");
    mem.put<uint64_t>(self + layout.obType, py.type("str"));
    mem.put<uint64_t>(environ + layout.obType, py.type("str"));
    mem.put<uint64_t>(names + layout.tupleItems, self);
    mem.put<uint64_t>(names + layout.tupleItems + 8, environ);
    mem.put<uint64_t>(code + layout.coLocalsplusNames, names);
    mem.put<uint64_t>(code + layout.coLocalsplusKinds, py.bytes({0x20, 0x20}));

    FrameRegistry registry;
    std::vector<LabelSource> sources;
    for (const char* spec :
         {"a=handler:self.request.path", "b=handler:environ['PATH_INFO']", "c=handler:self"})
        sources.push_back(parseLabelSource(spec).value());
    remote::FrameLabels labels(mem, layout, registry, sources);
    const uint64_t frame = kBase + (data[0] % 64) * 8;
    const std::vector<remote::FrameLabels::Anchor> anchors(3, {frame, code});
    std::vector<std::optional<std::string>> values;
    labels.read(anchors, values);
    test::checkLabelRead(labels, values, 3);
    return 0;
}
