// Call-tree transforms on any tree a recording can make (parents before children, valid
// function and line ids) and any stack of transforms: the result must be a valid tree of
// the same kind, and keep or drop every sample, never lose or invent one.
#include "core/analysis/call_transforms.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace gilscope;

namespace {

struct Bytes {
    const uint8_t* p;
    size_t n;
    uint8_t next() {
        if (!n) return 0;
        --n;
        return *p++;
    }
};

const char* const kFiles[] = {"/srv/app/m.py", "/venv/lib/python3.12/site-packages/django/a.py",
                              "/venv/lib/python3.12/site-packages/django/b.py",
                              "/usr/lib/python3.12/asyncio/events.py", "/lib/libc.so.6"};

void check(bool ok) {
    if (!ok) std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Bytes in{data, size};
    auto s = std::make_shared<ProfileSnapshot>();
    const size_t functions = 1 + in.next() % 8;
    for (size_t f = 0; f < functions; ++f) {
        s->functions.push_back({"f" + std::to_string(f % 5), kFiles[f % 5], 1, f % 5 == 4});
        s->lines.push_back({uint32_t(f), int32_t(f)});
        s->lines.push_back({uint32_t(f), int32_t(f + 100)});
    }
    s->nodes.emplace_back();
    s->selfCounts.push_back(0);
    const size_t nodes = in.next() % 64;
    for (size_t n = 1; n <= nodes; ++n) {
        const uint32_t parent = in.next() % n;
        const uint32_t func = in.next() % functions;
        const uint32_t opcode = in.next();
        s->nodes.push_back({parent, func, func * 2 + (opcode & 1),
                            (opcode << StackNode::kOpcodeShift) | (opcode >> 7)});
        s->selfCounts.push_back(in.next() % 4);
    }
    uint64_t total = 0;
    for (uint64_t c : s->selfCounts)
        total += c;
    s->matchedSamples = total;

    TransformStack stack;
    while (in.n && stack.size() < 6) {
        CallTransform t;
        t.kind = TransformKind(in.next() % (uint8_t(TransformKind::Invert) + 1));
        const uint8_t which = in.next();
        if (which % 4) t.function = {"f" + std::to_string(which % 5), which & 8 ? "" : "m.py"};
        for (size_t k = 0, depth = in.next() % 4; k < depth; ++k)
            t.path.push_back({"f" + std::to_string(in.next() % 5), ""});
        t.module = which & 16 ? "django" : "m";
        stack.push_back(std::move(t));
    }
    const auto out = applyTransforms(s, stack);
    check(out.has_value() && *out);
    const ProfileSnapshot& r = **out;
    check(r.selfCounts.size() == r.nodes.size() && !r.nodes.empty());
    uint64_t kept = 0;
    for (size_t n = 0; n < r.nodes.size(); ++n) {
        if (n) check(r.nodes[n].parent < n);
        if (n) check(r.nodes[n].func < r.functions.size());
        if (n)
            check(r.nodes[n].line < r.lines.size() &&
                  r.lines[r.nodes[n].line].func == r.nodes[n].func);
        kept += r.selfCounts[n];
    }
    check(kept + r.transformDropped == total);
    check(r.matchedSamples == kept);
    return 0;
}
