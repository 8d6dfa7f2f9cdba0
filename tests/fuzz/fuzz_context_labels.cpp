// libFuzzer target: --label-from reads a thread's contextvars.Context out of the target,
// which may put anything there. The input becomes the memory the reader walks: each word
// is raw bytes, a pointer back into it, a pointer to one of the HAMT's, a Context's, a
// ContextVar's or a str's type, or a small number, so the fuzzer builds trees, cycles and
// lies of every size; the same variable is read as OpenTelemetry's context too (its dict,
// span attributes and tuple of ints). Whatever it builds, the read is bounded, stays inside
// what it copied (ASan) and gives values of at most kMaxLabelValueBytes (ids of 32 and 16
// hex digits), or says it could not.
#include "core/remote/context_labels.h"
#include "core/remote/python_layout.h"
#include "tests/fuzz/hostile_words.h"
#include "tests/fuzz/label_read_checks.h"

#include <cstdint>
#include <iterator>
#include <string_view>

namespace {

// A type's tp_flags (168) and tp_dictoffset (288) lie inside it, its name after them.
constexpr uint64_t kBase = 0x10000000, kData = 1 << 13, kTypeSize = 352;
constexpr const char* kTypes[] = {"hamt_bitmap_node",
                                  "hamt_array_node",
                                  "hamt_collision_node",
                                  "hamt",
                                  "_contextvars.Context",
                                  "_contextvars.ContextVar",
                                  "str",
                                  "int",
                                  "NoneType",
                                  "tuple",
                                  "dict",
                                  "Context",
                                  "SpanContext",
                                  "Span"};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gilscope;
    if (size < 8) return 0;
    static const remote::PythonLayout layout = remote::builtinLayout(0x030C01F0u).value();
    test::FakeMemory mem;
    test::fillHostileWords(mem, kBase, kData, data, size, {kBase + kData, kTypeSize, kTypes}, 70);
    // What --label-from otel reads (a dict's keys, attributes, a tuple's ints) needs types
    // that say what they are subclasses of.
    for (size_t t = 0; t < std::size(kTypes); ++t) {
        const uint64_t type = kBase + kData + kTypeSize * t;
        const std::string_view name = kTypes[t];
        mem.put<uint64_t>(type + 32, 48); // tp_basicsize
        mem.put<uint64_t>(type + 168, name == "dict" || name == "Context"
                                          ? remote::RemoteDicts::kDictSubclass
                                      : name == "tuple" || name == "SpanContext"
                                          ? remote::RemoteDicts::kTupleSubclass
                                      : name == "int" ? remote::RemoteDicts::kLongSubclass
                                                      : 0);
        if (name == "Span") mem.put<int64_t>(type + 288, 16); // instances keep a __dict__ at +16
    }
    // The OpenTelemetry span read from the same variable as the route, so that any tree
    // that names one reaches both readers.
    using Span = LabelSource::Span;
    remote::ContextLabels labels(mem, layout,
                                 {{"route", "route"},
                                  {"t", "tenant"},
                                  {"trace_id", "route", {}, {}, {}, Span::TraceId},
                                  {"span_id", "route", {}, {}, {}, Span::SpanId},
                                  {"span_name", "route", {}, {}, {}, Span::SpanName}});
    std::vector<std::optional<std::string>> values;
    const uint64_t context = kBase + (data[0] % 64) * 8;
    labels.read(context, values);
    test::checkLabelRead(labels, values, 5);
    for (const auto& [index, digits] : {std::pair{2, 32}, std::pair{3, 16}})
        if (values[index] && values[index]->size() != size_t(digits) &&
            *values[index] != kUnreadableLabel)
            __builtin_trap();
    return 0;
}
