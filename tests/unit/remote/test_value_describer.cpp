// dump --locals' readers over a made-up memory, for what a real process cannot be made to
// hold on demand: objects whose type points nowhere, sizes that claim terabytes, a list
// that holds itself, sets far larger than the budget, names tuples of a million entries.
// Real values on real interpreters are tested in tests/integration/remote/test_dump_locals.
#include "core/remote/frame_locals.h"
#include "core/remote/python_layout.h"
#include "core/remote/value_describer.h"
#include "core/util/python_repr.h"
#include "tests/unit/remote/fake_memory.h"
#include "tests/unit/remote/fake_python.h"

#include <QTest>

using namespace gilscope;
using namespace gilscope::remote;
using namespace gilscope::test;

namespace {

class FakeObjects {
public:
    explicit FakeObjects(int minor)
        : layout(builtinLayout(0x030000F0u | (uint32_t(minor) << 16)).value()), py(mem, layout) {}

    uint64_t object(const std::string& typeName, size_t size = 64) {
        return py.object(typeName, size);
    }
    uint64_t list(const std::vector<uint64_t>& items, int64_t claimed = -1) {
        const uint64_t o = object("list");
        const uint64_t storage = py.alloc(8 * std::max<size_t>(items.size(), 1));
        for (size_t i = 0; i < items.size(); ++i)
            mem.put<uint64_t>(storage + 8 * i, items[i]);
        mem.put<int64_t>(o + 16, claimed >= 0 ? claimed : int64_t(items.size()));
        mem.put<uint64_t>(o + 24, storage);
        return o;
    }
    uint64_t smallInt(uint32_t v) {
        const uint64_t o = object("int");
        mem.put<int64_t>(o + 16, layout.minor >= 12 ? (v ? int64_t(1) << 3 : 1) : (v ? 1 : 0));
        mem.put<uint32_t>(o + 24, v);
        return o;
    }

    FakeMemory mem;
    PythonLayout layout;
    FakePython py;
};

} // namespace

class TestValueDescriber : public QObject {
    Q_OBJECT
private slots:
    void pythonReprs() {
        QCOMPARE(pythonStrRepr("abc"), std::string("'abc'"));
        QCOMPARE(pythonStrRepr("it's"), std::string("\"it's\""));
        QCOMPARE(pythonStrRepr("both ' and \""), std::string("'both \\' and \"'"));
        QCOMPARE(pythonStrRepr("a\nb\t\\\x01"), std::string("'a\\nb\\t\\\\\\x01'"));
        QCOMPARE(pythonStrRepr("\xC2\x85"), std::string("'\\x85'"));      // U+0085, a C1 control
        QCOMPARE(pythonStrRepr("h\xC3\xA9"), std::string("'h\xC3\xA9'")); // printable: kept
        const uint8_t raw[] = {0, 'a', 'b', 0xff, '\''};
        QCOMPARE(pythonBytesRepr(raw, sizeof raw), std::string("b\"\\x00ab\\xff'\""));
        // 2**100 in 30-bit digits: 2^100 = 2^(3*30) * 2^10.
        QCOMPARE(decimalFromDigits30({0, 0, 0, 1024}, false),
                 std::string("1267650600228229401496703205376"));
        QCOMPARE(decimalFromDigits30({7}, true), std::string("-7"));
        QCOMPARE(decimalFromDigits30({0, 0}, false), std::string("0"));
    }

    void typeThatPointsNowhereIsUnreadable() {
        FakeObjects f(12);
        const uint64_t o = f.py.alloc(64);
        f.mem.put<uint64_t>(o + 8, 0x7f0000001000); // unmapped
        RemoteDicts objects(f.mem, f.layout);
        ValueDescriber d(objects, f.layout);
        QCOMPARE(d.describe(o).text, std::string(ValueDescriber::kUnreadable));
        QCOMPARE(d.describe(0).text, std::string(ValueDescriber::kUnreadable));
        QCOMPARE(d.describe(o + 3).text, std::string(ValueDescriber::kUnreadable)); // misaligned
        // A type name that is no name (control bytes): not shown as one.
        const uint64_t odd = f.object("bad\x01name");
        QCOMPARE(d.describe(odd).text, std::string(ValueDescriber::kUnreadable));
    }

    void hostileContainersStayBounded() {
        FakeObjects f(12);
        RemoteDicts objects(f.mem, f.layout);
        ValueDescriber d(objects, f.layout);
        // A list that claims 2^39 items over a one-item storage: its first five are read,
        // the rest fail as unmapped, and it is unreadable.
        const uint64_t liar = f.list({f.smallInt(1)}, int64_t(1) << 39);
        QCOMPARE(d.describe(liar).text, std::string(ValueDescriber::kUnreadable));
        // A list that holds itself prints one level deep.
        const uint64_t self = f.list({0, f.smallInt(2)});
        uint64_t storage = 0;
        QVERIFY(f.mem.read(self + 24, &storage, 8));
        f.mem.put<uint64_t>(storage, self);
        const auto v = d.describe(self);
        QCOMPARE(v.text, std::string("[[\xE2\x80\xA6], 2]"));
        QCOMPARE(v.length, int64_t(2));
        // An int of a billion digits: its size is said, its digits are not read.
        const uint64_t huge = f.object("int");
        f.mem.put<int64_t>(huge + 16, int64_t(1000000000) << 3);
        QCOMPARE(d.describe(huge).text, std::string("<int of about 9030000000 digits>"));
        // A set of 2^19 slots, all empty: reading them all would pass the byte budget
        // (8 MiB against 4), and the read stops there.
        const uint64_t set = f.object("set");
        const uint64_t slotCount = uint64_t(1) << 19;
        const uint64_t table = f.py.alloc(slotCount * 16);
        f.mem.put<int64_t>(set + 24, 3); // used, but no key is found
        f.mem.put<uint64_t>(set + 32, slotCount - 1);
        f.mem.put<uint64_t>(set + 40, table);
        QCOMPARE(d.describe(set).text, std::string(ValueDescriber::kUnreadable));
        QVERIFY2(objects.bytesLeft() < 16 * 16, std::to_string(objects.bytesLeft()).c_str());
        // A mask that is not a power of two less one is not a set.
        f.mem.put<uint64_t>(set + 32, 1000);
        objects.beginRefresh();
        QCOMPARE(d.describe(set).text, std::string(ValueDescriber::kUnreadable));
    }

    void intsOnEachLayout() {
        for (int minor : {10, 12}) {
            FakeObjects f(minor);
            RemoteDicts objects(f.mem, f.layout);
            ValueDescriber d(objects, f.layout);
            QCOMPARE(d.describe(f.smallInt(42)).text, std::string("42"));
            QCOMPARE(d.describe(f.smallInt(0)).text, std::string("0"));
            const uint64_t negative = f.object("int");
            f.mem.put<int64_t>(negative + 16, minor >= 12 ? (int64_t(1) << 3) | 2 : -1);
            f.mem.put<uint32_t>(negative + 24, 7);
            QCOMPARE(d.describe(negative).text, std::string("-7"));
            // A digit of more than 30 bits is no int digit: torn.
            const uint64_t torn = f.smallInt(0);
            f.mem.put<int64_t>(torn + 16, minor >= 12 ? int64_t(1) << 3 : 1);
            f.mem.put<uint32_t>(torn + 24, 0xffffffffu);
            QCOMPARE(d.describe(torn).text, std::string(ValueDescriber::kUnreadable));
        }
    }

    // An int claiming more digits than memory holds is torn, not "<int of about ... digits>"
    // (the digit count times 9.03 overflowed an int64: found by fuzz_frame_labels).
    void intOfImpossibleSizeIsUnreadable() {
        FakeObjects f(12);
        RemoteDicts objects(f.mem, f.layout);
        ValueDescriber d(objects, f.layout);
        const uint64_t huge = f.smallInt(1);
        f.mem.put<uint64_t>(huge + 16, uint64_t{1} << 63 | uint64_t{1} << 62);
        QCOMPARE(d.describe(huge).text, std::string(ValueDescriber::kUnreadable));
        const uint64_t big = f.smallInt(1);
        f.mem.put<uint64_t>(big + 16, uint64_t{100} << 3);
        const std::string bigText = d.describe(big).text;
        QVERIFY2(bigText == "<int of about 902 digits>", bigText.c_str());
    }

    // A frame whose code claims a million variables is refused before any is read.
    void hugeNamesTupleIsAnError() {
        FakeObjects f(12);
        const uint64_t code = f.py.alloc(f.layout.coSize + 16);
        const uint64_t names = f.object("tuple");
        f.mem.put<int64_t>(names + 16, 1000000);
        f.mem.put<uint64_t>(code + f.layout.coLocalsplusNames, names);
        f.mem.put<uint64_t>(code + f.layout.coLocalsplusKinds, f.py.bytes({0x20}));
        const uint64_t frame = f.py.alloc(4096);
        FrameLocalsReader reader(f.mem, f.layout);
        QVERIFY(reader.supported());
        reader.beginThread();
        const FrameLocals l = reader.read(frame, code);
        QVERIFY(l.variables.empty());
        QVERIFY2(l.error.find("more than 1024 variables") != std::string::npos, l.error.c_str());
        // A code object that points nowhere: an error, not a crash.
        const FrameLocals none = reader.read(frame, 0x7f0000002000);
        QVERIFY(!none.error.empty());
    }
};

QTEST_GUILESS_MAIN(TestValueDescriber)
#include "test_value_describer.moc"
