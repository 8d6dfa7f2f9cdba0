// --label-from's reader over a made-up memory, for what a real process cannot be made to
// hold on demand: a HAMT whose node holds itself, sizes that do not match the bitmap, a
// context pointer into nowhere, a key that is not a ContextVar, a value of a megabyte.
// Real contexts on real interpreters: tests/integration/remote/test_context_labels.cpp.
#include "core/remote/context_labels.h"
#include "core/remote/python_layout.h"
#include "tests/unit/remote/fake_memory.h"
#include "tests/unit/remote/fake_python.h"

#include <QTest>

#include <map>

using namespace gilscope;
using namespace gilscope::remote;
using namespace gilscope::test;

namespace {

// Objects as a 3.12 build lays them out (the reader's offsets are the same from 3.8 on).
class FakeContexts {
public:
    FakeContexts() : layout(builtinLayout(0x030C01F0u).value()), py(mem, layout) {}

    uint64_t object(const std::string& typeName, size_t size) { return py.object(typeName, size); }
    uint64_t str(const std::string& s) {
        const uint64_t o = py.str(s);
        mem.put<uint64_t>(o + layout.obType, py.type("str"));
        return o;
    }
    uint64_t var(const std::string& name) {
        const uint64_t v = object("_contextvars.ContextVar", 64);
        mem.put<uint64_t>(v + 16, str(name));
        return v;
    }
    // A bitmap node holding these key/value slots (a key of 0: the value is a child).
    uint64_t bitmapNode(const std::vector<std::pair<uint64_t, uint64_t>>& pairs,
                        int64_t claimedSlots = -1) {
        const uint64_t n = object("hamt_bitmap_node", 32 + 16 * std::max<size_t>(pairs.size(), 1));
        mem.put<int64_t>(n + 16, claimedSlots >= 0 ? claimedSlots : int64_t(2 * pairs.size()));
        mem.put<uint32_t>(n + 24, (uint32_t{1} << pairs.size()) - 1);
        for (size_t i = 0; i < pairs.size(); ++i) {
            mem.put<uint64_t>(n + 32 + 16 * i, pairs[i].first);
            mem.put<uint64_t>(n + 40 + 16 * i, pairs[i].second);
        }
        return n;
    }
    // An array node, laid out as 3.8 - 3.13 (children after a plain header) or as later
    // versions (after a var header).
    uint64_t arrayNode(const std::vector<uint64_t>& children, bool varHeader) {
        const uint64_t n = object("hamt_array_node", 24 + 8 * 33);
        const uint64_t first = n + (varHeader ? 24 : 16);
        for (size_t i = 0; i < children.size(); ++i)
            mem.put<uint64_t>(first + 8 * i, children[i]);
        mem.put<int64_t>(first + 8 * 32, int64_t(children.size()));
        return n;
    }
    uint64_t context(uint64_t root) {
        const uint64_t h = object("hamt", 48);
        mem.put<uint64_t>(h + 16, root);
        const uint64_t c = object("_contextvars.Context", 64);
        mem.put<uint64_t>(c + 24, h);
        return c;
    }

    FakeMemory mem;
    PythonLayout layout;
    FakePython py;
};

std::vector<std::optional<std::string>> readLabels(FakeContexts& f, uint64_t context,
                                                   std::vector<LabelSource> sources,
                                                   bool* ok = nullptr) {
    ContextLabels labels(f.mem, f.layout, std::move(sources));
    std::vector<std::optional<std::string>> values;
    const bool read = labels.read(context, values);
    if (ok) *ok = read;
    return values;
}

} // namespace

class TestContextLabels : public QObject {
    Q_OBJECT
private slots:
    void parsesSources() {
        auto plain = parseLabelSource("route");
        QVERIFY(plain.ok());
        QCOMPARE(plain.value().key, std::string("route"));
        QCOMPARE(plain.value().varName, std::string("route"));
        auto renamed = parseLabelSource("tenant=current_tenant");
        QVERIFY(renamed.ok());
        QCOMPARE(renamed.value().key, std::string("tenant"));
        QCOMPARE(renamed.value().varName, std::string("current_tenant"));
        QVERIFY(!parseLabelSource("").ok());
        QVERIFY(!parseLabelSource("a b=x").ok());
        QVERIFY(!parseLabelSource("key=").ok());
    }

    void framesCarryTheLabel() {
        const std::string name = labelFrameName("route", "/a=b>c");
        QCOMPARE(name, std::string("<label route=/a=b>c>"));
        const auto label = labelOfFrame("~", name);
        QVERIFY(label.has_value());
        QCOMPARE(std::string(label->key), std::string("route"));
        QCOMPARE(std::string(label->value), std::string("/a=b>c"));
        QVERIFY(!labelOfFrame("app.py", name));
        QVERIFY(!labelOfFrame("~", "<lock wait>"));
        // Cut on a character's boundary: 127 'x' then a 2-byte character.
        const std::string longValue = std::string(127, 'x') + "\xC3\xA9";
        const std::string cut = shortLabelValue(longValue);
        QVERIFY(cut.size() <= kMaxLabelValueBytes);
        QVERIFY(cut.ends_with("\xE2\x80\xA6"));
        QCOMPARE(shortLabelValue("short"), std::string("short"));
    }

    void readsNestedAndCollidingVariables() {
        FakeContexts f;
        const uint64_t route = f.var("route"), tenant = f.var("tenant"), other = f.var("other");
        // route at the root, tenant one level down, other in a collision node.
        const uint64_t collision = f.object("hamt_collision_node", 64);
        f.mem.put<int64_t>(collision + 16, 2);
        f.mem.put<uint64_t>(collision + 32, other);
        f.mem.put<uint64_t>(collision + 40, f.str("x"));
        const uint64_t child = f.bitmapNode({{tenant, f.str("acme")}, {0, collision}});
        const uint64_t root = f.bitmapNode({{route, f.str("/checkout")}, {0, child}});
        const auto values = readLabels(
            f, f.context(root),
            {{"route", "route"}, {"t", "tenant"}, {"o", "other"}, {"missing", "missing"}});
        QCOMPARE(values.size(), size_t(4));
        QCOMPARE(values[0].value_or("?"), std::string("/checkout"));
        QCOMPARE(values[1].value_or("?"), std::string("acme"));
        QCOMPARE(values[2].value_or("?"), std::string("x"));
        QVERIFY(!values[3]);
    }

    void readsArrayNodesOfEitherHeader() {
        for (const bool varHeader : {false, true}) {
            FakeContexts f;
            const uint64_t route = f.var("route");
            const uint64_t leaf = f.bitmapNode({{route, f.str("/a")}});
            const auto values =
                readLabels(f, f.context(f.arrayNode({leaf}, varHeader)), {{"route", "route"}});
            QCOMPARE(values[0].value_or("?"), std::string("/a"));
        }
    }

    void showsOtherValuesAsDumpLocalsDoes() {
        FakeContexts f;
        const uint64_t n = f.var("n"), none = f.var("none");
        const uint64_t noneObject = f.object("NoneType", 32);
        const uint64_t number = f.object("int", 64);
        f.mem.put<int64_t>(number + 16, int64_t{1} << 3); // 3.12: one digit, positive
        f.mem.put<uint32_t>(number + 24, 42);
        const uint64_t root = f.bitmapNode({{n, number}, {none, noneObject}});
        const auto values = readLabels(f, f.context(root), {{"n", "n"}, {"none", "none"}});
        QCOMPARE(values[0].value_or("?"), std::string("42"));
        QCOMPARE(values[1].value_or("?"), std::string("None"));
    }

    void cutsHugeValues() {
        FakeContexts f;
        const uint64_t route = f.var("route");
        const uint64_t root = f.bitmapNode({{route, f.str(std::string(1 << 20, 'y'))}});
        const auto values = readLabels(f, f.context(root), {{"route", "route"}});
        QVERIFY(values[0].has_value());
        QVERIFY(values[0]->size() <= kMaxLabelValueBytes);
        QVERIFY(values[0]->starts_with("yyyy"));
    }

    void noContextMeansNoLabel() {
        FakeContexts f;
        bool ok = false;
        const auto values = readLabels(f, 0, {{"route", "route"}}, &ok);
        QVERIFY(ok);
        QVERIFY(!values[0]);
    }

    void hostileMemoryIsUnreadableNotACrash() {
        FakeContexts f;
        const uint64_t route = f.var("route");
        bool ok = true;
        // A context pointer into nowhere, and an object that is not a Context.
        readLabels(f, 0xdead0000, {{"route", "route"}}, &ok);
        QVERIFY(!ok);
        readLabels(f, f.object("dict", 64), {{"route", "route"}}, &ok);
        QVERIFY(!ok);
        // A node that holds itself: bounded, not a hang.
        const uint64_t loop = f.bitmapNode({{0, 0}, {0, 0}});
        f.mem.put<uint64_t>(loop + 40, loop);
        f.mem.put<uint64_t>(loop + 56, loop);
        readLabels(f, f.context(loop), {{"route", "route"}}, &ok);
        QVERIFY(!ok);
        // A size the bitmap does not back, and one of terabytes.
        readLabels(f, f.context(f.bitmapNode({{route, f.str("/a")}}, 40)), {{"route", "route"}},
                   &ok);
        QVERIFY(!ok);
        readLabels(f, f.context(f.bitmapNode({{route, f.str("/a")}}, int64_t{1} << 40)),
                   {{"route", "route"}}, &ok);
        QVERIFY(!ok);
        // A key that is not a ContextVar.
        readLabels(f, f.context(f.bitmapNode({{f.str("route"), f.str("/a")}})),
                   {{"route", "route"}}, &ok);
        QVERIFY(!ok);
        // An array node whose count does not match its children.
        const uint64_t bad = f.arrayNode({f.bitmapNode({{route, f.str("/a")}})}, false);
        f.mem.put<int64_t>(bad + 16 + 8 * 32, 7);
        readLabels(f, f.context(bad), {{"route", "route"}}, &ok);
        QVERIFY(!ok);
        // A value pointer into nowhere: the label says so, the read goes on.
        const auto values = readLabels(f, f.context(f.bitmapNode({{route, 0xbad00000}})),
                                       {{"route", "route"}}, &ok);
        QVERIFY(ok);
        QVERIFY(values[0].has_value());
        QCOMPARE(*values[0], std::string(ValueDescriber::kUnreadable));
    }
};

QTEST_GUILESS_MAIN(TestContextLabels)
#include "test_context_labels.moc"
