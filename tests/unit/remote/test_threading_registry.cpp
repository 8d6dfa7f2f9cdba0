// ThreadingRegistry and RemoteDicts over a made-up memory, for what a real process cannot be
// made to hold on demand: dicts whose headers claim huge tables, pointers into nothing,
// the same thread listed thousands of times, names too long to be names, and reads that
// fail at every point of a refresh. The names of real threads on real interpreters are
// tested in tests/integration/names.
#include "core/remote/python_layout.h"
#include "core/remote/threading_registry.h"
#include "tests/unit/remote/fake_memory.h"
#include "tests/unit/remote/fake_python.h"

#include <QTest>

#include <utility>

using namespace gilscope;
using namespace gilscope::remote;
using namespace gilscope::test;

namespace {

constexpr uint64_t kTpName = 24, kTpBasicSize = 32, kTpFlags = 168, kTpDictOffset = 288;

// 3.13 has no built-in table (its layout comes from _Py_DebugOffsets): the fields the
// registry uses, as its table gives them.
PythonLayout layoutFor(int minor) {
    if (minor <= 12) return builtinLayout(0x030000F0u | (uint32_t(minor) << 16)).value();
    PythonLayout l = builtinLayout(0x030C00F0u).value();
    l.minor = uint8_t(minor);
    l.inModules = 7656;
    l.htCachedKeys = 880;
    return l;
}

// threading's registry laid out for one layout: dicts, modules, Thread instances.
class FakeThreading {
public:
    explicit FakeThreading(const PythonLayout& l) : l_(l), py_(mem, l) {
        interp = py_.alloc(l.inModules + 8);
    }

    FakeMemory mem;

    uint64_t str(const std::string& s) { return py_.str(s); }
    uint64_t alloc(size_t n) { return py_.alloc(n); }

    // A dict of the given (key, value) pairs: the general kind, one-byte indices.
    uint64_t dict(const std::vector<std::pair<uint64_t, uint64_t>>& items) {
        const uint64_t keys = keysObject(items, /*split=*/false);
        const uint64_t d = py_.alloc(64);
        mem.put<int64_t>(d + 16, int64_t(items.size()));
        mem.put<uint64_t>(d + l_.dictKeys, keys);
        return d;
    }

    uint64_t intObject(uint64_t v) {
        const uint64_t o = py_.alloc(32);
        mem.put<int64_t>(o + 16, l_.minor >= 12 ? int64_t(1) << 3 : 1); // one digit
        mem.put<uint32_t>(o + 24, uint32_t(v));
        return o;
    }

    // A Thread instance (of a type named typeName) with _name and _native_id, stored as
    // this version keeps instance attributes.
    uint64_t thread(const std::string& typeName, uint64_t name, uint64_t nativeId) {
        const std::vector<std::pair<uint64_t, uint64_t>> attrs = {
            {str("_target"), str("t")}, {str("_name"), name}, {str("_native_id"), nativeId}};
        const uint64_t type = py_.alloc(1024);
        const uint64_t tpName = py_.alloc(64);
        mem.putBytes(tpName, typeName.c_str(), typeName.size() + 1);
        mem.put<uint64_t>(type + kTpName, tpName);
        const uint64_t base = py_.alloc(32 + 16 + 8 + 8 * attrs.size());
        const uint64_t obj = base + 32; // 3.11+ keep the dict (or values) before the object
        mem.put<uint64_t>(obj + l_.obType, type);
        mem.put<uint64_t>(type + kTpBasicSize, 16);
        if (l_.minor <= 10) {
            mem.put<uint64_t>(type + kTpBasicSize, 32);
            mem.put<int64_t>(type + kTpDictOffset, 16);
            const uint64_t d = dict(attrs);
            mem.put<uint64_t>(obj + 16, d);
            return obj;
        }
        mem.put<uint64_t>(type + kTpFlags, l_.minor >= 13 ? (1 << 4) | (1 << 2) : (1 << 4));
        std::vector<std::pair<uint64_t, uint64_t>> keysOnly;
        for (auto& [k, v] : attrs)
            keysOnly.push_back({k, 0});
        mem.put<uint64_t>(type + l_.htCachedKeys, keysObject(keysOnly, /*split=*/true));
        if (l_.minor >= 13) { // inline values after the object: a header, then the values
            mem.put<uint8_t>(obj + 16 + 3, 1);
            for (size_t i = 0; i < attrs.size(); ++i)
                mem.put<uint64_t>(obj + 24 + 8 * i, attrs[i].second);
            return obj;
        }
        const uint64_t values = py_.alloc(8 * attrs.size());
        for (size_t i = 0; i < attrs.size(); ++i)
            mem.put<uint64_t>(values + 8 * i, attrs[i].second);
        if (l_.minor == 11)
            mem.put<uint64_t>(obj - 32, values);
        else
            mem.put<uint64_t>(obj - 24, values - 1); // 3.12 tags values with the low bit
        return obj;
    }

    // sys.modules -> threading -> {_active: active, _limbo: limbo}.
    void install(uint64_t active, uint64_t limbo) {
        const uint64_t globals = dict({{str("_active"), active}, {str("_limbo"), limbo}});
        const uint64_t module = py_.alloc(32);
        mem.put<uint64_t>(module + 16, globals);
        const uint64_t modules = dict({{str("sys"), str("x")}, {str("threading"), module}});
        mem.put<uint64_t>(interp + l_.inModules, modules);
    }

    uint64_t interp = 0;

private:
    uint64_t keysObject(const std::vector<std::pair<uint64_t, uint64_t>>& items, bool split) {
        const size_t size = 64;
        const bool unicode = l_.minor >= 11 && split;
        const size_t entry = unicode ? 16 : 24;
        const size_t header = l_.minor <= 10 ? 40 : 32;
        const uint64_t k = py_.alloc(header + size + entry * items.size());
        if (l_.minor <= 10) {
            mem.put<uint64_t>(k + 8, size);
            mem.put<int64_t>(k + 32, int64_t(items.size()));
        } else {
            mem.put<uint8_t>(k + 8, 6);
            mem.put<uint8_t>(k + 9, 6);
            mem.put<uint8_t>(k + 10, unicode ? 2 : 0);
            mem.put<int64_t>(k + 24, int64_t(items.size()));
        }
        const uint64_t entries = k + header + size;
        for (size_t i = 0; i < items.size(); ++i) {
            const uint64_t e = entries + i * entry + (unicode ? 0 : 8);
            mem.put<uint64_t>(e, items[i].first);
            mem.put<uint64_t>(e + 8, items[i].second);
        }
        return k;
    }

    const PythonLayout& l_;
    FakePython py_;
};

} // namespace

class TestThreadingRegistry : public QObject {
    Q_OBJECT
private slots:
    void readsNamesOnEveryLayout_data() {
        QTest::addColumn<int>("minor");
        for (int minor : {8, 9, 10, 11, 12, 13})
            QTest::newRow(qPrintable(QStringLiteral("3.%1").arg(minor))) << minor;
    }
    void readsNamesOnEveryLayout() {
        QFETCH(int, minor);
        const PythonLayout l = layoutFor(minor);
        FakeThreading t(l);
        const uint64_t writer = t.thread("Writer", t.str("db-writer"), t.intObject(1234));
        const uint64_t main = t.thread("_MainThread", t.str("MainThread"), t.intObject(99));
        const uint64_t dummy = t.thread("_DummyThread", t.str("Dummy-1"), t.intObject(98));
        const uint64_t starting = t.thread("Thread", t.str("not-yet"), 0); // no native id
        const uint64_t limbo = t.thread("Thread", t.str("in-limbo"), t.intObject(1235));
        t.install(t.dict({{t.intObject(1), writer},
                          {t.intObject(2), main},
                          {t.intObject(3), dummy},
                          {t.intObject(4), starting}}),
                  t.dict({{limbo, limbo}}));
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        QVERIFY2(registry.read(out), registry.why().c_str());
        QCOMPARE(out.size(), size_t(2));
        QCOMPARE(out[0].nativeId, uint64_t(1234));
        QCOMPARE(out[0].name, std::string("db-writer"));
        QCOMPARE(out[1].nativeId, uint64_t(1235));
        QCOMPARE(out[1].name, std::string("in-limbo"));
    }

    // The target's _Py_DebugOffsets may put a str's state and length anywhere in its header
    // (up to 508 bytes): each key's copy spans them (issue 35). Read outside the copy, they
    // came from the next key's bytes, or from past the buffer (ASan), and no key matched.
    void strFieldsFarOutAreReadInsideTheCopy() {
        PythonLayout l = layoutFor(12);
        l.strLength = 488;
        l.strState = 500;
        FakeThreading t(l);
        const uint64_t writer = t.thread("Writer", t.str("db-writer"), t.intObject(1234));
        t.install(t.dict({{t.intObject(1), writer}}), t.dict({}));
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        QVERIFY2(registry.read(out), registry.why().c_str());
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(out[0].name, std::string("db-writer"));
        // Past any str header: refused with a reason, nothing read out of bounds.
        l.strState = 4000;
        ThreadingRegistry lying(t.mem, l, t.interp);
        QVERIFY(!lying.read(out));
        QVERIFY2(lying.why().find("str layout") != std::string::npos, lying.why().c_str());
    }

    void withoutThreadingThereAreNoNames() {
        const PythonLayout l = layoutFor(12);
        FakeThreading t(l);
        const uint64_t modules = t.dict({{t.str("sys"), t.str("x")}});
        t.mem.put<uint64_t>(t.interp + l.inModules, modules);
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        QVERIFY(registry.read(out));
        QVERIFY(out.empty());
    }

    // Headers that claim tables no dict has: refused from the header, nothing allocated
    // for them, a handful of reads.
    void hugeOrNegativeCountsAreRefused_data() {
        QTest::addColumn<int>("minor");
        QTest::addColumn<qint64>("entries");
        for (int minor : {10, 12})
            for (qint64 n : {qint64(-1), qint64(1) << 40, qint64(65)})
                QTest::newRow(qPrintable(QStringLiteral("3.%1 %2").arg(minor).arg(n)))
                    << minor << n;
    }
    void hugeOrNegativeCountsAreRefused() {
        QFETCH(int, minor);
        QFETCH(qint64, entries);
        const PythonLayout l = layoutFor(minor);
        FakeThreading t(l);
        const uint64_t writer = t.thread("Writer", t.str("db-writer"), t.intObject(1234));
        const uint64_t active = t.dict({{t.intObject(1), writer}});
        t.install(active, t.dict({}));
        uint64_t keys = 0;
        QVERIFY(t.mem.readValue(active + l.dictKeys, keys));
        t.mem.put<int64_t>(keys + (minor <= 10 ? 32 : 24), entries); // beyond its 64 slots
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        QVERIFY(!registry.read(out));
        QVERIFY(out.empty());
        QVERIFY2(QByteArray(registry.why().c_str()).contains("entry count"),
                 registry.why().c_str());
        QVERIFY(t.mem.calls() < 40);
    }

    // A table as large as a header may claim (2^24 slots), all of them used: only
    // kMaxEntries are looked at, within the one budget.
    void largestTablesStayWithinTheBudget() {
        const PythonLayout l = layoutFor(12);
        FakeThreading t(l);
        const uint64_t writer = t.thread("Writer", t.str("db-writer"), t.intObject(1234));
        const size_t n = RemoteDicts::kMaxEntries + 100;
        const uint64_t keys = t.alloc(32 + 4096 + 24 * n);
        t.mem.put<uint8_t>(keys + 8, 24);
        t.mem.put<uint8_t>(keys + 9, 12);
        t.mem.put<int64_t>(keys + 24, int64_t(uint64_t(1) << 24));
        const uint64_t key = t.intObject(1);
        for (size_t i = 0; i < n; ++i) { // one thread listed over and over
            t.mem.put<uint64_t>(keys + 32 + 4096 + 24 * i + 8, key);
            t.mem.put<uint64_t>(keys + 32 + 4096 + 24 * i + 16, writer);
        }
        const uint64_t active = t.alloc(64);
        t.mem.put<uint64_t>(active + l.dictKeys, keys);
        t.install(active, t.dict({}));
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        // The entries table is shorter than 2^24 slots claim: the read of kMaxEntries of
        // them succeeds and the duplicates name one thread once.
        QVERIFY2(registry.read(out), registry.why().c_str());
        QCOMPARE(out.size(), size_t(1));
        QVERIFY(t.mem.calls() < 60);
    }

    // Pointers into nothing, a dict listed as its own thread, a name no str can have:
    // refused or skipped, never followed further.
    void badPointersAndLoopsEndTheRead() {
        const PythonLayout l = layoutFor(13);
        FakeThreading t(l);
        const uint64_t huge = t.str("x");
        t.mem.put<int64_t>(huge + l.strLength, int64_t(1) << 50);
        const uint64_t hugeName = t.thread("Thread", huge, t.intObject(7));
        const uint64_t good = t.thread("Thread", t.str("ok"), t.intObject(8));
        t.install(t.dict({{t.intObject(1), hugeName}, {t.intObject(2), good}}), t.dict({}));
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        QVERIFY2(registry.read(out), registry.why().c_str());
        QCOMPARE(out.size(), size_t(1)); // the impossible name is skipped
        QCOMPARE(out[0].name, std::string("ok"));

        FakeThreading loop(l);
        const uint64_t self = loop.alloc(64); // a dict whose only thread is itself
        loop.install(self, loop.dict({}));
        const uint64_t keys = loop.dict({{loop.intObject(1), self}});
        uint64_t realKeys = 0;
        QVERIFY(loop.mem.readValue(keys + l.dictKeys, realKeys));
        loop.mem.put<uint64_t>(self + l.dictKeys, realKeys);
        ThreadingRegistry looping(loop.mem, l, loop.interp);
        QVERIFY(!looping.read(out)); // its "type" is not a type
        QVERIFY(out.empty());

        FakeThreading wild(l);
        wild.install(0xdead0000, wild.dict({}));
        ThreadingRegistry lost(wild.mem, l, wild.interp);
        QVERIFY(!lost.read(out));
        QVERIFY(!lost.why().empty());
    }

    // Many threads with the longest names: the refresh stops at its byte budget.
    void oneBudgetBoundsARefresh() {
        const PythonLayout l = layoutFor(12);
        FakeThreading t(l);
        const std::string longName(ThreadingRegistry::kMaxNameChars * 4, 'n');
        const uint64_t name = t.str(longName);
        std::vector<std::pair<uint64_t, uint64_t>> items;
        const uint64_t key = t.intObject(1);
        for (int i = 0; i < 3000; ++i)
            items.push_back({key, t.thread("Thread", name, t.intObject(1000 + i))});
        const uint64_t active = t.dict({});
        // One keys object holding all of them (the helper's table has 64 slots).
        const uint64_t keys = t.alloc(32 + 8192 + 24 * items.size());
        t.mem.put<uint8_t>(keys + 8, 13);
        t.mem.put<uint8_t>(keys + 9, 13);
        t.mem.put<int64_t>(keys + 24, int64_t(items.size()));
        for (size_t i = 0; i < items.size(); ++i) {
            t.mem.put<uint64_t>(keys + 32 + 8192 + 24 * i + 8, items[i].first);
            t.mem.put<uint64_t>(keys + 32 + 8192 + 24 * i + 16, items[i].second);
        }
        t.mem.put<uint64_t>(active + l.dictKeys, keys);
        t.install(active, t.dict({}));
        ThreadingRegistry registry(t.mem, l, t.interp);
        std::vector<PythonThread> out;
        QVERIFY(!registry.read(out));
        QVERIFY2(QByteArray(registry.why().c_str()).contains("larger than gilscope reads"),
                 registry.why().c_str());
        QVERIFY(out.size() < items.size());
        for (const PythonThread& p : out) // names are cut at kMaxNameChars
            QVERIFY(p.name.size() <= ThreadingRegistry::kMaxNameChars + 3);
    }

    // A read that fails at any point (the target freed what we followed) ends the refresh
    // with an error or with fewer names: never a crash, never a made-up name.
    void failingAtEveryReadIsClean() {
        for (int minor : {10, 11, 12, 13}) {
            const PythonLayout l = layoutFor(minor);
            FakeThreading t(l);
            const uint64_t writer = t.thread("Writer", t.str("db-writer"), t.intObject(1234));
            t.install(t.dict({{t.intObject(1), writer}}), t.dict({}));
            ThreadingRegistry whole(t.mem, l, t.interp);
            std::vector<PythonThread> out;
            QVERIFY(whole.read(out));
            const size_t calls = t.mem.calls();
            for (size_t k = 0; k < calls; ++k) {
                t.mem.failAfterCalls = t.mem.calls() + k;
                ThreadingRegistry registry(t.mem, l, t.interp);
                const bool ok = registry.read(out);
                QVERIFY(ok || !registry.why().empty());
                for (const PythonThread& p : out)
                    QCOMPARE(p.name, std::string("db-writer"));
            }
            t.mem.failAfterCalls = SIZE_MAX;
        }
    }
};

QTEST_GUILESS_MAIN(TestThreadingRegistry)
#include "test_threading_registry.moc"
