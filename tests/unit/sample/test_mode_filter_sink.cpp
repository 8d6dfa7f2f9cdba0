// ModeFilterSink keeps what CPython's --mode keeps, and tells the sink behind it the mode.
#include "core/sample/frame_registry.h"
#include "core/sample/mode_filter_sink.h"

#include <QTest>

#include <vector>

using namespace gilscope;

namespace {

struct Recorder : SampleSink {
    int mode = -99;
    std::vector<uint32_t> statuses;
    bool finished = false;
    void begin(const FrameRegistry&, const RecordingInfo& info) override { mode = info.mode; }
    void addBatch(const SampleBatch& b) override { statuses.push_back(b.status); }
    void finish(const RecordingSummary&) override { finished = true; }
};

std::vector<uint32_t> feed(ProfilingMode mode, int* modeSeen) {
    using namespace ThreadStatus;
    Recorder out;
    ModeFilterSink filter(mode, out);
    FrameRegistry registry;
    RecordingInfo info;
    info.mode = int(ProfilingMode::All);
    filter.begin(registry, info);
    const uint64_t t = 1;
    for (uint32_t status :
         {0u, HasGil | OnCpu, OnCpu, GilRequested, HasException | OnCpu, HasGil, Unknown}) {
        SampleBatch b;
        b.status = status;
        b.timestampsUs = std::span<const uint64_t>(&t, 1);
        filter.addBatch(b);
    }
    filter.finish({});
    if (!out.finished) return {0xdead};
    *modeSeen = out.mode;
    return out.statuses;
}

} // namespace

class TestModeFilterSink : public QObject {
    Q_OBJECT
private slots:
    void keepsWhatTheModeSelects() {
        using namespace ThreadStatus;
        int mode = 0;
        QCOMPARE(feed(ProfilingMode::Cpu, &mode),
                 (std::vector<uint32_t>{HasGil | OnCpu, OnCpu, HasException | OnCpu}));
        QCOMPARE(mode, int(ProfilingMode::Cpu));
        QCOMPARE(feed(ProfilingMode::Gil, &mode), (std::vector<uint32_t>{HasGil | OnCpu, HasGil}));
        QCOMPARE(mode, int(ProfilingMode::Gil));
        QCOMPARE(feed(ProfilingMode::Exception, &mode),
                 (std::vector<uint32_t>{HasException | OnCpu}));
        QCOMPARE(feed(ProfilingMode::Wall, &mode).size(), size_t(7));
        QCOMPARE(mode, int(ProfilingMode::Wall));
        QCOMPARE(feed(ProfilingMode::All, &mode).size(), size_t(7));
    }

    void parsesCPythonsNames() {
        QCOMPARE(parseProfilingMode("cpu"), std::optional(ProfilingMode::Cpu));
        QCOMPARE(parseProfilingMode("exception"), std::optional(ProfilingMode::Exception));
        QVERIFY(!parseProfilingMode("CPU"));
        QVERIFY(!parseProfilingMode(""));
    }
};

QTEST_APPLESS_MAIN(TestModeFilterSink)
#include "test_mode_filter_sink.moc"
