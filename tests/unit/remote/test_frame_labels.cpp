// --label-from KEY=FUNC:EXPR over a made-up memory, for what a real process cannot be made
// to hold on demand: a variable pointing into nowhere, a key step into something that is no
// dict, a code object that cannot be read, a value of a megabyte. Real frames on real
// interpreters: tests/integration/remote/test_context_labels.cpp (routesShareAsTheServiceMeasured).
#include "core/remote/frame_labels.h"
#include "core/remote/python_layout.h"
#include "tests/unit/remote/fake_memory.h"
#include "tests/unit/remote/fake_python.h"

#include <QTest>

using namespace gilscope;
using namespace gilscope::remote;
using namespace gilscope::test;

namespace {

// A 3.12 frame whose code names its variables (all plain locals).
class FakeFrames {
public:
    FakeFrames() : layout(builtinLayout(0x030C01F0u).value()), py(mem, layout) {}

    uint64_t str(const std::string& s) {
        const uint64_t o = py.str(s);
        mem.put<uint64_t>(o + layout.obType, py.type("str"));
        return o;
    }
    uint64_t code(const std::vector<std::string>& variables) {
        const uint64_t c = py.code("handler", 10);
        const uint64_t names = py.object("tuple", 64 + 8 * variables.size());
        mem.put<int64_t>(names + layout.varSize, int64_t(variables.size()));
        for (size_t i = 0; i < variables.size(); ++i)
            mem.put<uint64_t>(names + layout.tupleItems + 8 * i, str(variables[i]));
        mem.put<uint64_t>(c + layout.coLocalsplusNames, names);
        mem.put<uint64_t>(c + layout.coLocalsplusKinds,
                          py.bytes(std::vector<uint8_t>(variables.size(), 0x20)));
        return c;
    }
    uint64_t frame(const std::vector<uint64_t>& words) {
        const uint64_t f = py.alloc(layout.frLocalsplus + 8 * words.size() + 64);
        for (size_t i = 0; i < words.size(); ++i)
            mem.put<uint64_t>(f + layout.frLocalsplus + 8 * i, words[i]);
        return f;
    }

    FakeMemory mem;
    PythonLayout layout;
    FakePython py;
    FrameRegistry registry;
};

LabelSource source(const std::string& spec) {
    auto s = parseLabelSource(spec);
    if (!s.ok()) qFatal("%s", s.error().message.c_str());
    return s.value();
}

} // namespace

class TestFrameLabels : public QObject {
    Q_OBJECT
private slots:
    void parsesFrameSources() {
        const LabelSource s = source("route=app.views:Handler.do_GET:self.request['PATH_INFO']");
        QVERIFY(s.fromFrame());
        QCOMPARE(s.key, std::string("route"));
        QCOMPARE(s.function, std::string("app.views:Handler.do_GET"));
        QCOMPARE(s.variable, std::string("self"));
        QCOMPARE(s.path.size(), size_t(2));
        QCOMPARE(s.path[0].name, std::string("request"));
        QVERIFY(s.path[1].kind == LabelPathStep::Kind::Key);
        QCOMPARE(s.path[1].name, std::string("PATH_INFO"));
        // A key may hold a ':' and a '.'; spec() gives back what parses to the same.
        const LabelSource k = source("t=work:environ[\"a:b.c\"]");
        QCOMPARE(k.path[0].name, std::string("a:b.c"));
        QCOMPARE(source(k.spec()), k);
        QCOMPARE(source("route").spec(), std::string("route=route"));
        QVERIFY(!source("route").fromFrame());
        for (const char* bad : {"do_GET:self.path", "r=do_GET:", "r=:self", "r=f:self.",
                                "r=f:self[path]", "r=f:1x", "r=a:b:c:d", "r=f:x['k'"})
            QVERIFY2(!parseLabelSource(bad).ok(), bad);
    }

    void matchesFunctionsByQualifiedName() {
        QVERIFY(labelFunctionMatches("do_GET", "Handler.do_GET", "/srv/app.py"));
        QVERIFY(labelFunctionMatches("Handler.do_GET", "Handler.do_GET", "/srv/app.py"));
        QVERIFY(labelFunctionMatches("Handler.do_GET", "do_GET", "/srv/app.py")); // <= 3.10
        QVERIFY(!labelFunctionMatches("GET", "Handler.do_GET", "/srv/app.py"));
        QVERIFY(!labelFunctionMatches("Other.do_GET", "Handler.do_GET", "/srv/app.py"));
        QVERIFY(labelFunctionMatches("app.views:handle", "handle", "/srv/app/views.py"));
        QVERIFY(labelFunctionMatches("app:handle", "handle", "/srv/app/__init__.py"));
        QVERIFY(!labelFunctionMatches("app.views:handle", "handle", "/srv/myapp/views.py"));
        QVERIFY(!labelFunctionMatches("app.views:handle", "handle", "/srv/app/views2.py"));
    }

    // The innermost frame of the function gives the label; a str is its own text.
    void readsTheInnermostFramesVariable() {
        FakeFrames f;
        const uint64_t code = f.code({"self", "path"});
        const uint64_t outer = f.frame({0, f.str("/outer")});
        const uint64_t inner = f.frame({0, f.str("/inner")});
        FrameLabels labels(f.mem, f.layout, f.registry, {source("route=handler:path")});
        FrameInfo handler;
        handler.funcname = f.registry.internString("Service.handler");
        handler.filename = f.registry.internString("/srv/service.py");
        FrameInfo other = handler;
        other.funcname = f.registry.internString("spin");
        const std::vector<FrameId> frames{f.registry.internFrame(other),
                                          f.registry.internFrame(handler),
                                          f.registry.internFrame(handler)};
        const std::vector<FrameAddress> addresses{{1, inner, code}, {2, outer, code}};
        std::vector<FrameLabels::Anchor> anchors;
        labels.findAnchors(frames, addresses, anchors);
        QCOMPARE(anchors.size(), size_t(1));
        QCOMPARE(anchors[0].frame, inner);
        std::vector<std::optional<std::string>> values;
        QVERIFY2(labels.read(anchors, values), labels.why().c_str());
        QCOMPARE(values[0].value_or("(none)"), std::string("/inner"));
        // The same bytes prove the same label; a new value in the slot does not.
        const LabelReads::Proof proof = labels.lastProof();
        QVERIFY(proof.complete);
        QVERIFY(labels.stillHolds(proof));
        f.mem.put<uint64_t>(inner + f.layout.frLocalsplus + 8, f.str("/next"));
        QVERIFY(!labels.stillHolds(proof));
        // Not on the stack: no label, and nothing to prove.
        labels.findAnchors({frames.data(), 1}, {}, anchors);
        QVERIFY(labels.read(anchors, values));
        QVERIFY(!values[0]);
    }

    void unsetIsNoLabelAndNowhereIsUnreadable() {
        FakeFrames f;
        const uint64_t code = f.code({"request"});
        std::vector<std::optional<std::string>> values;
        // Not assigned yet: no label, not an error.
        FrameLabels unset(f.mem, f.layout, f.registry, {source("route=h:request.path")});
        QVERIFY(unset.read(std::vector<FrameLabels::Anchor>{{f.frame({0}), code}}, values));
        QVERIFY(!values[0]);
        // A variable pointing into nowhere, a key step into a str, a frame that cannot be
        // read, a code object that cannot: "(unreadable)", with the reason.
        const uint64_t nowhere = f.frame({0xdead0000});
        const uint64_t aStr = f.frame({f.str("/x")});
        const std::vector<std::pair<std::string, FrameLabels::Anchor>> cases{
            {"route=h:request.path", {nowhere, code}},
            {"route=h:request['path']", {aStr, code}},
            {"route=h:request", {0x10, code}},
            {"route=h:request", {aStr, 0xdead0000}},
            {"route=h:missing", {aStr, code}}};
        for (const auto& [spec, anchor] : cases) {
            FrameLabels labels(f.mem, f.layout, f.registry, {source(spec)});
            QVERIFY2(!labels.read(std::vector<FrameLabels::Anchor>{anchor}, values), spec.c_str());
            QCOMPARE(values[0].value_or("(none)"), std::string(kUnreadableLabel));
            QVERIFY2(!labels.why().empty(), spec.c_str());
            QVERIFY(!labels.lastProof().complete); // read again next time
        }
    }

    void cutsHugeValues() {
        FakeFrames f;
        const uint64_t code = f.code({"path"});
        const uint64_t frame = f.frame({f.str(std::string(1 << 20, 'p'))});
        FrameLabels labels(f.mem, f.layout, f.registry, {source("route=h:path")});
        std::vector<std::optional<std::string>> values;
        labels.read(std::vector<FrameLabels::Anchor>{{frame, code}}, values);
        QVERIFY(values[0].has_value());
        QVERIFY(values[0]->size() <= kMaxLabelValueBytes);
    }
};

QTEST_GUILESS_MAIN(TestFrameLabels)
#include "test_frame_labels.moc"
