// The sampler's stats seqlock under stress: one writer publishes snapshots whose fields
// are all derived from one counter, readers on other threads check that every snapshot
// they get is one the writer published (all fields from the same counter value) and that
// snapshots never go back in time. A torn read mixes two publishes and is caught.
// Ends on events (the writer's last value seen by every reader), never on time.
#include "core/sampler/sampler_stats_publisher.h"

#include <QTest>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using namespace gilscope;

namespace {

constexpr int kFields = sizeof(RawSamplerStats) / sizeof(uint64_t);

// Field i of publish k: distinct per field, so a mix of two publishes never looks whole.
uint64_t fieldValue(uint64_t k, int i) {
    return k * 0x9E3779B97F4A7C15ull + uint64_t(i) * 0x100000001B3ull;
}

RawSamplerStats snapshot(uint64_t k) {
    uint64_t v[kFields];
    for (int i = 0; i < kFields; ++i)
        v[i] = fieldValue(k, i);
    RawSamplerStats s;
    std::memcpy(&s, v, sizeof v);
    return s;
}

// The publish a snapshot came from, or UINT64_MAX if its fields disagree (torn).
uint64_t publishOf(const RawSamplerStats& s) {
    uint64_t v[kFields];
    std::memcpy(v, &s, sizeof v);
    // Undo field 0's mapping: multiply by the inverse of the odd constant (mod 2^64).
    uint64_t inv = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 5; ++i)
        inv *= 2 - 0x9E3779B97F4A7C15ull * inv;
    const uint64_t k = v[0] * inv;
    for (int i = 0; i < kFields; ++i)
        if (v[i] != fieldValue(k, i)) return UINT64_MAX;
    return k;
}

struct ReaderResult {
    uint64_t reads = 0, torn = 0, backwards = 0, distinct = 0;
};

} // namespace

class TestStatsSeqlock : public QObject {
    Q_OBJECT
private slots:
    void decodesWhatItEncodes() {
        for (uint64_t k : {uint64_t{0}, uint64_t{1}, uint64_t{123456789}, ~uint64_t{0} - 1})
            QCOMPARE(publishOf(snapshot(k)), k);
        RawSamplerStats mixed = snapshot(7);
        mixed.errors = snapshot(8).errors;
        QCOMPARE(publishOf(mixed), UINT64_MAX);
    }

    void everySnapshotIsWhole() {
        constexpr uint64_t kPublishes = 300'000;
        constexpr int kReaders = 3;
        SamplerStatsPublisher pub;
        pub.publish(snapshot(0));
        std::atomic<bool> writerStarted{false};
        std::atomic<uint64_t> work{0};
        std::thread writer([&] {
            writerStarted.store(true);
            for (uint64_t k = 1; k <= kPublishes; ++k) {
                pub.publish(snapshot(k));
                // A little work between publishes, as the sampler reads between ticks:
                // readers then mostly get in between, and often race a publish.
                for (int spin = 0; spin < 200; ++spin)
                    work.fetch_add(1, std::memory_order_relaxed);
            }
        });
        std::vector<ReaderResult> results(kReaders);
        std::vector<std::thread> readers;
        for (int r = 0; r < kReaders; ++r)
            readers.emplace_back([&, r] {
                while (!writerStarted.load())
                    std::this_thread::yield();
                ReaderResult& out = results[size_t(r)];
                uint64_t last = 0;
                for (;;) {
                    const uint64_t k = publishOf(pub.read());
                    ++out.reads;
                    if (k == UINT64_MAX) {
                        ++out.torn;
                        continue;
                    }
                    if (k < last) ++out.backwards;
                    if (k != last) ++out.distinct;
                    last = std::max(last, k);
                    if (k == kPublishes) break;
                }
            });
        writer.join();
        for (std::thread& t : readers)
            t.join();
        uint64_t distinct = 0;
        for (const ReaderResult& r : results) {
            qInfo("reader: %llu reads, %llu distinct snapshots, %llu torn, %llu backwards",
                  (unsigned long long)r.reads, (unsigned long long)r.distinct,
                  (unsigned long long)r.torn, (unsigned long long)r.backwards);
            QCOMPARE(r.torn, uint64_t{0});
            QCOMPARE(r.backwards, uint64_t{0});
            distinct += r.distinct;
        }
        // Every reader saw the last publish; that they saw the writer move at all shows
        // reads overlapped writes (each saw at least the first and the last).
        QVERIFY(distinct >= uint64_t{kReaders});
    }
};

QTEST_GUILESS_MAIN(TestStatsSeqlock)
#include "test_stats_seqlock.moc"
