// StateFilterSink keeps exactly the thread-samples the analysis views count in each
// state (the export of the GUI's state filter must match what the views show): the same
// synthetic recording goes through ProfileModel and through the filter, for every state,
// with GC frames, exceptions, and run-length batches that only partly fall in contended
// ticks (GIL contention splits them).
#include "core/analysis/profile_model.h"
#include "core/analysis/state_filter_sink.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

using namespace gilscope;
using gilscope::test::SyntheticFeed;
namespace TS = gilscope::ThreadStatus;

namespace {

// Counts what reaches it, and checks every batch keeps at least one timestamp.
struct CountingSink final : SampleSink {
    uint64_t samples = 0;
    bool emptyBatch = false;
    void addBatch(const SampleBatch& b) override {
        samples += b.timestampsUs.size();
        emptyBatch = emptyBatch || b.timestampsUs.empty();
    }
};

// 300 ticks, 1 ms apart, three threads. Thread 1 holds the GIL on a CPU, in GC every
// fifth tick; thread 2 waits for the GIL every third tick and is in an exception every
// seventh; thread 3 holds the GIL in run-length batches of ten ticks for ticks 100-199.
void feedRecording(SampleSink& sink) {
    SyntheticFeed feed(sink);
    const FrameId work = feed.frame("app.py", 1, "work"), gc = feed.frame("", 0, "<GC>"),
                  wait = feed.frame("app.py", 5, "wait"), batch = feed.frame("app.py", 9, "batch");
    for (uint64_t i = 0; i < 300; ++i) {
        const uint64_t t = 1'000'000 + i * 1000;
        if (i % 5 == 0)
            feed.add(1, TS::HasGil | TS::OnCpu, {gc, work}, {t});
        else
            feed.add(1, TS::HasGil | TS::OnCpu, {work}, {t});
        // Off CPU otherwise: on a lock, then a read and a sleep in turn.
        uint32_t status =
            i % 3 == 0   ? TS::GilRequested
            : i % 3 == 1 ? withWaitReason(0, WaitReason::Lock)
                         : withWaitReason(0, i % 2 == 0 ? WaitReason::IoRead : WaitReason::Sleep);
        if (i % 7 == 0) status |= TS::HasException;
        feed.add(2, status, {wait}, {t});
        if (i >= 100 && i < 200 && i % 10 == 0) {
            std::vector<uint64_t> run;
            for (uint64_t k = 0; k < 10; ++k)
                run.push_back(t + k * 1000);
            feed.add(3, TS::HasGil, {batch}, run);
        }
    }
    sink.finish({});
}

} // namespace

class TestStateFilterSink : public QObject {
    Q_OBJECT
private slots:
    void keepsWhatTheViewsCount() {
        ProfileModel model;
        feedRecording(model);
        // The first pass of a contention view: the ticks some thread waited.
        auto contendedFor = [](StateFilter state) {
            ContendedTimesSink times(state);
            feedRecording(times);
            return times.takeTimes();
        };
        QCOMPARE(contendedFor(StateFilter::GilContention).size(), size_t(100)); // every third
        QCOMPARE(contendedFor(StateFilter::LockContention).size(), size_t(100));
        for (StateFilter state : kAllStateFilters) {
            ProfileFilter f;
            f.state = state;
            auto snapshot = model.query(f);
            QVERIFY(snapshot);
            CountingSink counted;
            const std::vector<uint64_t> contended = contendedFor(state);
            StateFilterSink filter(state, counted, &contended);
            feedRecording(filter);
            qInfo("%s: %llu thread-samples", stateFilterName(state).data(),
                  static_cast<unsigned long long>(counted.samples));
            QCOMPARE(counted.samples, (*snapshot)->matchedSamples);
            QVERIFY(!counted.emptyBatch);
        }
        // Figures that follow from the recording itself, so a wrong model cannot hide one.
        auto count = [&](StateFilter state) {
            CountingSink counted;
            const std::vector<uint64_t> contended = contendedFor(state);
            StateFilterSink filter(state, counted, &contended);
            feedRecording(filter);
            return counted.samples;
        };
        QCOMPARE(count(StateFilter::All), uint64_t(300 + 300 + 100));
        QCOMPARE(count(StateFilter::Gc), uint64_t(60));
        QCOMPARE(count(StateFilter::WaitingForGil), uint64_t(100));
        QCOMPARE(count(StateFilter::Exception), uint64_t(43));
        // Holders at the 100 contended ticks: thread 1 always, thread 3 in ticks 100-199
        // that are multiples of three (33 of them).
        QCOMPARE(count(StateFilter::GilContention), uint64_t(100 + 33));
        QCOMPARE(count(StateFilter::LockWait), uint64_t(100));
        QCOMPARE(count(StateFilter::IoWait), uint64_t(50));
        QCOMPARE(count(StateFilter::Sleep), uint64_t(50));
        QCOMPARE(count(StateFilter::Poll), uint64_t(0));
        // At the 100 ticks thread 2 waits on a lock, only thread 1 is on a CPU.
        QCOMPARE(count(StateFilter::LockContention), uint64_t(100));
    }
};

QTEST_MAIN(TestStateFilterSink)
#include "test_state_filter_sink.moc"
