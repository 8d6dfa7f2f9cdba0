// The --live table without a terminal: shares of the kept samples, the three sort orders,
// the key cycles, and threads busiest first.
#include "core/analysis/profile_model.h"
#include "core/gecko/opcode_names.h"
#include "core/sample/thread_status.h"
#include "tests/support/synthetic_feed.h"
#include "tui/live_table.h"

#include <QTest>

using namespace gilscope;
using namespace gilscope::tui;
using gilscope::test::SyntheticFeed;

namespace {

std::vector<uint64_t> times(uint64_t from, size_t n) {
    std::vector<uint64_t> v;
    for (size_t i = 0; i < n; ++i)
        v.push_back(from + i * 1000);
    return v;
}

std::string order(const LiveTable& t) {
    std::string s;
    for (const LiveRow& r : t.rows)
        s += (s.empty() ? "" : " ") + r.function;
    return s;
}

} // namespace

class TestLiveTable : public QObject {
    Q_OBJECT
private slots:
    void sharesAndOrders() {
        ProfileModel model;
        {
            SyntheticFeed feed(model);
            const FrameId main = feed.frame("app.py", 1, "<module>");
            const FrameId heavy = feed.frame("app.py", 5, "heavy");
            const FrameId light = feed.frame("app.py", 9, "light");
            feed.add(1, ThreadStatus::MainThread, {heavy, main}, times(0, 70));
            feed.add(2, 0, {light, main}, times(100000, 30));
            model.finish({});
            auto s = model.query({});
            QVERIFY(s);
            const LiveTable own = buildLiveTable(**s, SortKey::Own);
            QCOMPARE(order(own), std::string("heavy light <module>"));
            QCOMPARE(own.rows[0].own, uint64_t(70));
            QCOMPARE(own.rows[0].ownPct, 70.0);
            QCOMPARE(own.rows[2].totalPct, 100.0);
            QCOMPARE(own.rows[0].where, std::string("app.py:5"));
            QCOMPARE(order(buildLiveTable(**s, SortKey::Total)),
                     std::string("<module> heavy light"));
            QCOMPARE(order(buildLiveTable(**s, SortKey::Name)),
                     std::string("<module> heavy light"));
            const auto threads = threadsBySamples(**s);
            QCOMPARE(threads.size(), size_t(2));
            QCOMPARE(threads[0].threadId, uint64_t(1));
            QCOMPARE(threadLabel(threads[0]), std::string("1 (main)"));
            ProfileFilter one;
            one.threads = {2};
            auto only = model.query(one);
            QVERIFY(only);
            const LiveTable t = buildLiveTable(**only, SortKey::Own);
            QCOMPARE(t.matched, uint64_t(30));
            QCOMPARE(t.recorded, uint64_t(100));
            QCOMPARE(order(t), std::string("light <module>"));
        }
    }

    // --opcodes: each row names the instruction most of its own samples ran, with its
    // share; a function without instructions (and a recording without) names none.
    void rowsNameTheirTopInstruction() {
        ProfileModel model;
        SyntheticFeed feed(model);
        const uint8_t first = 44, second = 45;
        const FrameId main = feed.frame("app.py", 1, "<module>");
        const FrameId a = feed.frame("app.py", 5, "loads", first),
                      b = feed.frame("app.py", 6, "loads", second);
        feed.add(1, ThreadStatus::MainThread, {a, main}, times(0, 60));
        feed.add(1, ThreadStatus::MainThread, {b, main}, times(60'000, 40));
        model.finish({});
        auto s = model.query({});
        QVERIFY(s);
        const LiveTable t = buildLiveTable(**s, SortKey::Own);
        QCOMPARE(t.rows.size(), size_t(2));
        QCOMPARE(t.rows[0].function, std::string("loads"));
        QCOMPARE(t.rows[0].instruction, formatOpcode(first, 0) + " 60%");
        QVERIFY(t.rows[1].instruction.empty()); // <module> ran no instruction of its own
        QVERIFY(formatOpcode(first, 0) != formatOpcode(second, 0));

        ProfileModel plain;
        SyntheticFeed plainFeed(plain);
        const FrameId f = plainFeed.frame("app.py", 5, "loads");
        plainFeed.add(1, ThreadStatus::MainThread, {f}, times(0, 10));
        plain.finish({});
        auto p = plain.query({});
        QVERIFY(p);
        QVERIFY(buildLiveTable(**p, SortKey::Own).rows[0].instruction.empty());
    }

    void keysCycle() {
        QCOMPARE(nextSort(nextSort(nextSort(SortKey::Own))), SortKey::Own);
        StateFilter s = StateFilter::All;
        std::vector<StateFilter> seen;
        for (int i = 0; i < 4; ++i)
            seen.push_back(s = nextState(s));
        QCOMPARE(seen, (std::vector<StateFilter>{StateFilter::OnCpu, StateFilter::HoldingGil,
                                                 StateFilter::WaitingForGil, StateFilter::All}));
    }
};

QTEST_GUILESS_MAIN(TestLiveTable)
#include "test_live_table.moc"
