// SamplerGroup: samplers ticked by one shared thread (the host agent's) keep their own
// ends: a target that exits, a duration reached, a stop request and a destructor each end
// their sampler only, with sink.finish() once, while the others go on. Real clock.
#include "core/sampler/sampler_group.h"
#include "scripted_stack_source.h"

#include <QTest>

#include <chrono>

using namespace gilscope;
using namespace gilscope::test;

class TestSamplerGroup : public QObject {
    Q_OBJECT
private slots:
    void eachSamplerEndsOnItsOwn() {
        SamplerGroup group;
        SamplerOptions options{1000, 0, {}}; // 1 kHz
        options.group = &group;
        ScriptedStackSource exits(nullptr, nullptr, [](uint64_t n) {
            return n >= 20 ? ReadOutcome::ProcessEnded : ReadOutcome::Ok;
        });
        ScriptedStackSource runs(nullptr, nullptr, nullptr);
        ScriptedStackSource timed(nullptr, nullptr, nullptr);
        RecordingSink exitsSink, runsSink, timedSink;
        SamplerOptions timedOptions = options;
        timedOptions.durationSec = 0.05;
        Sampler a(exits, exitsSink, options), b(runs, runsSink, options),
            c(timed, timedSink, timedOptions);
        a.start();
        b.start();
        c.start();

        QCOMPARE(a.wait(), StopReason::TargetExited);
        QCOMPARE(exitsSink.timestamps.size(), size_t(20));
        QCOMPARE(c.wait(), StopReason::Duration);
        QVERIFY(!timedSink.timestamps.empty());
        // The third goes on after the others ended, until asked to stop.
        const uint64_t before = b.stats().okTicks;
        QTRY_VERIFY_WITH_TIMEOUT(b.stats().okTicks >= before + 50, 60000);
        QVERIFY(b.running());
        const auto t0 = std::chrono::steady_clock::now();
        b.requestStop();
        QCOMPARE(b.wait(), StopReason::Requested);
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2500));
        for (const RecordingSink* s : {&exitsSink, &runsSink, &timedSink}) {
            QCOMPARE(s->begins, 1);
            QCOMPARE(s->finishes, 1);
            QCOMPARE(s->outOfOrder, 0);
        }
        // Ticks stay on the interval's grid, each sampler's own.
        for (size_t k = 1; k < exitsSink.timestamps.size(); ++k)
            QVERIFY(exitsSink.timestamps[k] > exitsSink.timestamps[k - 1]);
    }

    void destructorEndsAGroupSampler() {
        SamplerGroup group;
        SamplerOptions options{1000, 0, {}};
        options.group = &group;
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        {
            Sampler sampler(source, sink, options);
            sampler.start();
            QTRY_VERIFY_WITH_TIMEOUT(sampler.stats().okTicks >= 5, 60000);
        }
        QCOMPARE(sink.finishes, 1);
    }
};

QTEST_GUILESS_MAIN(TestSamplerGroup)
#include "test_sampler_group.moc"
