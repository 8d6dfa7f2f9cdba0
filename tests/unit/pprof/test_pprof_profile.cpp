// PprofSink and PprofProfile: what they encode, decoded with the classes protoc made from
// the same profile.proto (Go's own reader checks real recordings in
// tests/integration/pprof).
#include "core/pprof/gzip.h"
#include "core/pprof/pprof_sink.h"
#include "core/pprof/profile.pb.h"
#include "core/sample/sample_label.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

#include <set>
#include <zlib.h>

using namespace gilscope;
using namespace gilscope::pprof;
using gilscope::test::SyntheticFeed;

namespace {

perftools::profiles::Profile decode(const TakenProfile& taken) {
    perftools::profiles::Profile p;
    auto bytes = taken.profile->encode(taken.header);
    if (bytes) p.ParseFromString(*bytes);
    return p;
}

std::string str(const perftools::profiles::Profile& p, int64_t index) {
    return index >= 0 && index < p.string_table_size() ? p.string_table(static_cast<int>(index))
                                                       : "<out of range>";
}

std::string label(const perftools::profiles::Profile& p, const perftools::profiles::Sample& s,
                  const std::string& key) {
    for (const auto& l : s.label())
        if (str(p, l.key()) == key) return str(p, l.str());
    return {};
}

std::string gunzip(const std::string& in) {
    z_stream z{};
    inflateInit2(&z, 15 + 16);
    std::string out(in.size() * 20 + 1024, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    out.resize(z.total_out);
    inflateEnd(&z);
    return rc == Z_STREAM_END ? out : std::string("<not gzip>");
}

} // namespace

class TestPprofProfile : public QObject {
    Q_OBJECT

private slots:
    // --label-from's root frames become pprof labels (what -tagfocus selects), not
    // locations; past kMaxLabelValues distinct values a key's values fold into "other".
    void labelFramesBecomeLabels() {
        PprofSink sink(PprofSinkOptions{});
        SyntheticFeed feed(sink, 1000);
        const FrameId leaf = feed.frame("app.py", 12, "handle");
        const FrameId route = feed.frame("~", 0, labelFrameName("route", "/checkout"));
        const FrameId tenant = feed.frame("~", 0, labelFrameName("tenant", "acme"));
        feed.add(7, ThreadStatus::OnCpu, {leaf, tenant, route}, {1000});
        feed.add(7, ThreadStatus::OnCpu, {leaf}, {2000});
        for (int i = 0; i < 300; ++i)
            feed.add(8, ThreadStatus::OnCpu,
                     {leaf, feed.frame("~", 0, labelFrameName("request", std::to_string(i)))},
                     {uint64_t(3000 + i)});
        const auto p = decode(sink.take(false));
        int labelled = 0, plain = 0, other = 0;
        std::set<std::string> requests;
        for (const auto& s : p.sample()) {
            QCOMPARE(s.location_id_size(), 1); // the label frames are not locations
            if (label(p, s, "route") == "/checkout") {
                QCOMPARE(label(p, s, "tenant"), std::string("acme"));
                ++labelled;
            } else if (!label(p, s, "request").empty()) {
                requests.insert(label(p, s, "request"));
                other += label(p, s, "request") == "other";
            } else {
                ++plain;
            }
        }
        QCOMPARE(labelled, 1);
        QCOMPARE(plain, 1);
        QVERIFY(requests.size() <= 257); // 256 values and "other"
        QVERIFY(other > 0);
        for (const auto& f : p.function())
            QVERIFY(!str(p, f.name()).starts_with("<label"));
    }

    void headerAndTablesFollowTheSchema() {
        PprofSinkOptions options;
        options.wall = false;
        PprofSink sink(options);
        SyntheticFeed feed(sink, 250);                                        // 4 kHz
        const FrameId leaf = feed.frame("app.py", 12, "leaf", kNoOpcode, 10); // def on line 10
        const FrameId root = feed.frame("app.py", 30, "<module>");
        feed.add(7, ThreadStatus::OnCpu, {leaf, root}, {1000, 1250});
        feed.add(7, ThreadStatus::OnCpu, {leaf, root}, {1500});
        const auto p = decode(sink.take(false));

        QCOMPARE(p.string_table(0), std::string());
        QCOMPARE(p.sample_type_size(), 2);
        QCOMPARE(str(p, p.sample_type(0).type()), std::string("samples"));
        QCOMPARE(str(p, p.sample_type(0).unit()), std::string("count"));
        QCOMPARE(str(p, p.sample_type(1).type()), std::string("cpu"));
        QCOMPARE(str(p, p.sample_type(1).unit()), std::string("nanoseconds"));
        QCOMPARE(str(p, p.period_type().type()), std::string("cpu"));
        QCOMPARE(p.period(), int64_t{250'000});
        QCOMPARE(p.duration_nanos(), int64_t{750'000}); // 1000..1500 µs and one period
        QVERIFY(p.time_nanos() > int64_t{1'600'000'000} * 1'000'000'000);
        // Three samples of one stack on one thread in one state: one pprof sample.
        QCOMPARE(p.sample_size(), 1);
        QCOMPARE(p.sample(0).value(0), int64_t{3});
        QCOMPARE(p.sample(0).value(1), int64_t{750'000});
        QCOMPARE(label(p, p.sample(0), "thread_id"), std::string("7"));
        QCOMPARE(label(p, p.sample(0), "thread_state"), std::string("cpu"));
        // Leaf first, every id non-zero and resolving.
        QCOMPARE(p.sample(0).location_id_size(), 2);
        std::set<uint64_t> locationIds, functionIds;
        for (const auto& f : p.function()) {
            QVERIFY(f.id() != 0);
            QVERIFY(functionIds.insert(f.id()).second);
        }
        for (const auto& l : p.location()) {
            QVERIFY(l.id() != 0);
            QVERIFY(locationIds.insert(l.id()).second);
            QCOMPARE(l.line_size(), 1);
            QVERIFY(functionIds.contains(l.line(0).function_id()));
        }
        const auto& leafLocation = p.location(static_cast<int>(p.sample(0).location_id(0)) - 1);
        QCOMPARE(leafLocation.id(), p.sample(0).location_id(0));
        QCOMPARE(leafLocation.line(0).line(), int64_t{12});
        const auto& leafFunction =
            p.function(static_cast<int>(leafLocation.line(0).function_id()) - 1);
        QCOMPARE(str(p, leafFunction.name()), std::string("leaf"));
        QCOMPARE(str(p, leafFunction.filename()), std::string("app.py"));
        // start_line is co_firstlineno where the reader knew it, else 0 (unknown).
        QCOMPARE(leafFunction.start_line(), int64_t{10});
        const auto& rootLocation = p.location(static_cast<int>(p.sample(0).location_id(1)) - 1);
        QCOMPARE(p.function(static_cast<int>(rootLocation.line(0).function_id()) - 1).start_line(),
                 int64_t{0});
    }

    void wallModeNamesWallTime() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        feed.add(1, ThreadStatus::Unknown, {feed.frame("a.py", 1, "f")}, {10});
        const auto p = decode(sink.take(false));
        QCOMPARE(str(p, p.sample_type(1).type()), std::string("wall"));
        QCOMPARE(str(p, p.period_type().type()), std::string("wall"));
        // Wall mode does not probe the CPU: a thread that neither holds nor waits for the
        // GIL has no state to tell.
        QCOMPARE(label(p, p.sample(0), "thread_state"), std::string());
    }

    // One value per sample, the first that applies: gc, exception, gil, wait, cpu, idle.
    void threadStatesTakeTheFirstThatApplies_data() {
        QTest::addColumn<uint32_t>("status");
        QTest::addColumn<bool>("gc");
        QTest::addColumn<QString>("state");
        using namespace ThreadStatus;
        QTest::newRow("gc") << (HasGil | OnCpu | HasException) << true << "gc";
        QTest::newRow("exception") << (HasGil | OnCpu | HasException) << false << "exception";
        QTest::newRow("gil") << (HasGil | OnCpu) << false << "gil";
        QTest::newRow("gil off cpu") << HasGil << false << "gil";
        QTest::newRow("wait") << GilRequested << false << "wait";
        QTest::newRow("cpu") << OnCpu << false << "cpu";
        QTest::newRow("idle") << uint32_t{0} << false << "idle";
        QTest::newRow("unknown") << Unknown << false << "";
        QTest::newRow("gil, cpu unknown") << (HasGil | Unknown) << false << "gil";
        // Off CPU: why, where the kernel said (values none of which holds another).
        QTest::newRow("lock") << withWaitReason(0, WaitReason::Lock) << false << "lock";
        QTest::newRow("read") << withWaitReason(0, WaitReason::IoRead) << false << "i/o";
        QTest::newRow("connect") << withWaitReason(0, WaitReason::Connect) << false << "i/o";
        QTest::newRow("poll") << withWaitReason(0, WaitReason::Poll) << false << "poll";
        QTest::newRow("sleep") << withWaitReason(0, WaitReason::Sleep) << false << "sleep";
        QTest::newRow("child") << withWaitReason(0, WaitReason::ChildWait) << false << "idle";
        QTest::newRow("gil before lock")
            << withWaitReason(HasGil, WaitReason::Lock) << false << "gil";
    }
    void threadStatesTakeTheFirstThatApplies() {
        QFETCH(uint32_t, status);
        QFETCH(bool, gc);
        QFETCH(QString, state);
        PprofSink sink;
        SyntheticFeed feed(sink);
        std::vector<FrameId> stack{feed.frame("a.py", 3, "work")};
        if (gc) stack.insert(stack.begin(), feed.frame("~", 0, "<GC>"));
        feed.add(1, status, stack, {10});
        const auto p = decode(sink.take(false));
        QCOMPARE(QString::fromStdString(label(p, p.sample(0), "thread_state")), state);
    }

    // An I/O wait leaf (--wait-reasons) names its peer in wait_target; other samples have
    // none, and past 64 peers the rest are "other" (engines index every label value).
    void waitTargetsNameThePeer() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        const FrameId work = feed.frame("app.py", 3, "work");
        const FrameId recv = feed.frame("~", 0, "<read TCP 10.0.0.5:5432>");
        const FrameId lock = feed.frame("~", 0, "<lock wait>");
        feed.add(1, withWaitReason(0, WaitReason::IoRead), {recv, work}, {10});
        feed.add(1, withWaitReason(0, WaitReason::Lock), {lock, work}, {20});
        for (int i = 0; i < 70; ++i) {
            const FrameId peer =
                feed.frame("~", 0, "<write TCP 10.0.1." + std::to_string(i) + ":80>");
            feed.add(2, withWaitReason(0, WaitReason::IoWrite), {peer, work}, {uint64_t(30 + i)});
        }
        const auto p = decode(sink.take(false));
        std::set<std::string> targets;
        int withTarget = 0;
        for (const auto& s : p.sample()) {
            const std::string target = label(p, s, "wait_target");
            const std::string state = label(p, s, "thread_state");
            if (!target.empty()) {
                ++withTarget;
                targets.insert(target);
                QCOMPARE(state, std::string("i/o"));
            } else {
                QVERIFY(state != "i/o");
            }
        }
        QCOMPARE(withTarget, 71);
        QVERIFY(targets.count("TCP 10.0.0.5:5432"));
        QVERIFY(targets.count("other"));
        QCOMPARE(targets.size(), size_t(65)); // 64 peers and "other"
    }

    void samplesSplitByThreadAndState() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        const FrameId f = feed.frame("a.py", 3, "work");
        feed.add(1, ThreadStatus::HasGil, {f}, {10});
        feed.add(1, ThreadStatus::GilRequested, {f}, {20});
        feed.add(2, ThreadStatus::HasGil, {f}, {20, 30});
        const auto p = decode(sink.take(false));
        QCOMPARE(p.sample_size(), 3);
        int64_t sum = 0;
        for (const auto& s : p.sample())
            sum += s.value(0);
        QCOMPARE(sum, int64_t{4});
        QCOMPARE(p.location_size(), 1);
    }

    // Frames that differ only in column or opcode are one location (one per line).
    void oneLocationPerFunctionLine() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        const FrameId a = feed.frame("a.py", 3, "work", 1);
        const FrameId b = feed.frame("a.py", 3, "work", 2);
        const FrameId c = feed.frame("a.py", 4, "work");
        feed.add(1, 0, {a}, {10});
        feed.add(1, 0, {b}, {20});
        feed.add(1, 0, {c}, {30});
        const auto p = decode(sink.take(false));
        QCOMPARE(p.function_size(), 1);
        QCOMPARE(p.location_size(), 2);
    }

    void namesBecomeValidUtf8() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        feed.add(1, 0, {feed.frame("b\xff.py", 1, "f\xfe")}, {10});
        const auto p = decode(sink.take(false));
        QCOMPARE(str(p, p.function(0).name()), std::string("f\xef\xbf\xbd"));
        QCOMPARE(str(p, p.function(0).filename()), std::string("b\xef\xbf\xbd.py"));
    }

    // A push takes each interval's samples once: the next take holds only what came after.
    void takeStartsAFreshProfile() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        const FrameId f = feed.frame("a.py", 3, "work");
        feed.add(1, 0, {f}, {10, 20});
        const TakenProfile first = sink.take(true);
        QCOMPARE(first.profile->totalSamples(), uint64_t{2});
        QVERIFY(sink.take(true).profile->empty());
        feed.add(1, 0, {f}, {30});
        const auto p = decode(sink.take(true));
        QCOMPARE(p.sample_size(), 1);
        QCOMPARE(p.sample(0).value(0), int64_t{1});
        QCOMPARE(str(p, p.function(0).name()), std::string("work")); // its own tables
        QCOMPARE(sink.totalSamples(), uint64_t{3});
    }

    // Past maxSamples (Pyroscope's bound) the threads merge; stacks and states stay apart.
    void tooManySamplesMergeThreads() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        const FrameId a = feed.frame("a.py", 3, "a"), b = feed.frame("a.py", 4, "b");
        for (uint64_t tid = 1; tid <= 10; ++tid) {
            feed.add(tid, ThreadStatus::HasGil, {a}, {10});
            feed.add(tid, ThreadStatus::GilRequested, {a}, {10});
            feed.add(tid, ThreadStatus::HasGil, {b}, {10, 20});
        }
        TakenProfile taken = sink.take(false);
        QCOMPARE(decode(taken).sample_size(), 30);
        taken.header.maxSamples = 29;
        const auto p = decode(taken);
        QCOMPARE(p.sample_size(), 3);
        int64_t total = 0;
        for (const auto& s : p.sample()) {
            total += s.value(0);
            QCOMPARE(label(p, s, "thread_id"), std::string());
            QVERIFY(!label(p, s, "thread_state").empty());
        }
        QCOMPARE(total, int64_t{40});
    }

    void gzipRoundTrips() {
        PprofSink sink;
        SyntheticFeed feed(sink);
        feed.add(1, 0, {feed.frame("a.py", 3, "work")}, {10});
        const TakenProfile taken = sink.take(false);
        auto gz = encodeGzipped(taken);
        QVERIFY(gz);
        QCOMPARE(uint8_t((*gz)[0]), uint8_t(0x1f)); // gzip magic
        QCOMPARE(uint8_t((*gz)[1]), uint8_t(0x8b));
        QCOMPARE(gunzip(*gz), taken.profile->encode(taken.header).value());
    }
};

QTEST_GUILESS_MAIN(TestPprofProfile)
#include "test_pprof_profile.moc"
