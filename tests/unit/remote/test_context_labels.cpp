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
    // A type whose tp_flags and tp_basicsize RemoteDicts reads (a subclass of dict, tuple
    // or int, or a class whose instances keep a __dict__ at +16).
    uint64_t typeWithFlags(const std::string& name, uint64_t flags, int64_t dictOffset = 0) {
        const uint64_t t = py.type(name);
        mem.put<uint64_t>(t + 32, 48); // tp_basicsize
        mem.put<uint64_t>(t + 168, flags);
        mem.put<int64_t>(t + 288, dictOffset);
        return t;
    }
    uint64_t withType(uint64_t object, uint64_t type) {
        mem.put<uint64_t>(object + layout.obType, type);
        return object;
    }
    // A 3.12 dict of str keys (a "unicode" keys table, 16-byte entries, 8 index bytes).
    uint64_t dict(const std::string& typeName, uint64_t flags,
                  const std::vector<std::pair<uint64_t, uint64_t>>& items) {
        const uint64_t keys = py.alloc(32 + 8 + 16 * std::max<size_t>(items.size(), 1));
        mem.put<uint8_t>(keys + 8, 3);  // dk_log2_size: 8 slots
        mem.put<uint8_t>(keys + 9, 3);  // dk_log2_index_bytes: 8
        mem.put<uint8_t>(keys + 10, 1); // dk_kind: unicode
        mem.put<int64_t>(keys + 24, int64_t(items.size()));
        for (size_t i = 0; i < items.size(); ++i) {
            mem.put<uint64_t>(keys + 40 + 16 * i, items[i].first);
            mem.put<uint64_t>(keys + 48 + 16 * i, items[i].second);
        }
        const uint64_t d = withType(py.alloc(64), typeWithFlags(typeName, flags));
        mem.put<int64_t>(d + 16, int64_t(items.size()));
        mem.put<uint64_t>(d + layout.dictKeys, keys);
        return d;
    }
    uint64_t integer(unsigned __int128 value) {
        const uint64_t o = withType(py.alloc(64), typeWithFlags("int", RemoteDicts::kLongSubclass));
        int64_t digits = 0;
        for (; value != 0; value >>= 30, ++digits)
            mem.put<uint32_t>(o + 24 + 4 * uint64_t(digits), uint32_t(value & 0x3fffffff));
        mem.put<int64_t>(o + 16, digits == 0 ? 1 : digits << 3); // lv_tag (1: zero)
        return o;
    }
    // OpenTelemetry's context: a Context (dict subclass) holding the span under its key;
    // the span's __dict__ holds _name and _context, a SpanContext (tuple subclass).
    uint64_t otelContext(unsigned __int128 traceId, uint64_t spanId, const std::string& name,
                         uint64_t spanOverride = 0) {
        const uint64_t spanContext =
            withType(py.alloc(128), typeWithFlags("SpanContext", RemoteDicts::kTupleSubclass));
        mem.put<int64_t>(spanContext + layout.varSize, 6);
        mem.put<uint64_t>(spanContext + layout.tupleItems, integer(traceId));
        mem.put<uint64_t>(spanContext + layout.tupleItems + 8, integer(spanId));
        const uint64_t attributes =
            dict("dict", RemoteDicts::kDictSubclass,
                 {{str("_name"), str(name)}, {str("_context"), spanContext}});
        const uint64_t span =
            spanOverride ? spanOverride : withType(py.alloc(64), typeWithFlags("Span", 0, 16));
        if (!spanOverride) mem.put<uint64_t>(span + 16, attributes);
        return dict("Context", RemoteDicts::kDictSubclass,
                    {{str("current-span-4bf2c1d0-9a4e-4c55-b7b5-1f0e4d4b8e21"), span}});
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

    // --label-from otel: the span's ids in hex as W3C trace context writes them, its name.
    void readsOpenTelemetrysCurrentSpan() {
        FakeContexts f;
        const auto sources = parseLabelSources("otel");
        QVERIFY(sources.ok());
        QCOMPARE(sources.value().size(), size_t(3));
        QCOMPARE(sources.value()[1].spec(), std::string("otel"));
        const unsigned __int128 traceId = (unsigned __int128)1 << 127 | 0xabcdef;
        const uint64_t otel = f.otelContext(traceId, 0x00f067aa0ba902b7ull, "GET /checkout");
        const uint64_t ctx = f.context(f.bitmapNode({{f.var("current_context"), otel}}));
        auto values = readLabels(f, ctx, sources.value());
        QCOMPARE(values[0].value_or("(none)"), std::string("80000000000000000000000000abcdef"));
        QCOMPARE(values[1].value_or("(none)"), std::string("00f067aa0ba902b7"));
        QCOMPARE(values[2].value_or("(none)"), std::string("GET /checkout"));
        // INVALID_SPAN (span id 0): no span, no labels.
        const uint64_t invalid = f.otelContext(0, 0, "");
        values = readLabels(f, f.context(f.bitmapNode({{f.var("current_context"), invalid}})),
                            sources.value());
        QVERIFY(!values[0] && !values[1] && !values[2]);
        // Another variable of that name whose value is no dict: not OpenTelemetry's.
        values =
            readLabels(f, f.context(f.bitmapNode({{f.var("current_context"), f.str("other")}})),
                       sources.value());
        QVERIFY(!values[1]);
        // A span pointer into nowhere, a span whose ids are no ints: unreadable, not a crash.
        bool ok = true;
        const uint64_t nowhere = f.otelContext(1, 1, "x", 0xdead0000);
        values = readLabels(f, f.context(f.bitmapNode({{f.var("current_context"), nowhere}})),
                            sources.value(), &ok);
        QVERIFY(!ok);
    }

    // A small node's first read takes in the objects after it, which other threads change
    // as they run: the label stands on the node's own bytes. (A thread blocked on a lock
    // was once "(unreadable)" sample after sample, its neighbours never the same twice.)
    void neighboursOfANodeChangingDoNotTearItsRead() {
        FakeContexts f;
        const uint64_t route = f.var("route");
        const uint64_t node = f.object("hamt_bitmap_node", 160); // one pair, then another object
        f.mem.put<int64_t>(node + 16, 2);
        f.mem.put<uint32_t>(node + 24, 1);
        f.mem.put<uint64_t>(node + 32, route);
        f.mem.put<uint64_t>(node + 40, f.str("/checkout"));
        uint64_t neighbour = 0;
        f.mem.beforeRead = [&](uint64_t) { f.mem.put<uint64_t>(node + 64, ++neighbour); };
        bool ok = false;
        const auto values = readLabels(f, f.context(node), {{"route", "route"}}, &ok);
        QVERIFY(ok);
        QCOMPARE(values[0].value_or("?"), std::string("/checkout"));
        QVERIFY(neighbour > 1); // it did change between the read and its proof
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
