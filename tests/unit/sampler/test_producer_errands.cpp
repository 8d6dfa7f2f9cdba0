// What other threads hand to the sampler's thread (issue 47): an errand that throws (a
// control socket `flush` out of memory or disk) throws to the thread that asked, never
// leaves it waiting, and the errands after it still run; a sink that throws between two
// ticks releases every errand it took; marks are capped in bytes as well as in number.
#include "core/sampler/producer_errands.h"

#include <QTest>

#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>

using namespace gilscope;

namespace {

struct CountingSink : SampleSink {
    size_t marks = 0;
    bool throwOnMark = false;
    void addBatch(const SampleBatch&) override {}
    void addMarker(uint64_t, const std::string&) override {
        if (throwOnMark) throw std::bad_alloc();
        ++marks;
    }
};

// Hands on until `done` is ready (the producer's loop, on this thread).
template <typename T>
T handOnUntil(ProducerErrands& errands, SampleSink& sink, std::future<T>& done) {
    while (done.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready)
        errands.handOn(sink);
    return done.get();
}

} // namespace

class TestProducerErrands : public QObject {
    Q_OBJECT
private slots:
    void aThrowingErrandThrowsToItsCaller() {
        ProducerErrands errands;
        CountingSink sink;
        std::atomic<bool> laterRan{false};
        // Two callers, one errand each; the first throws.
        std::promise<void> firstAsked;
        auto thrown = std::async(std::launch::async, [&] {
            try {
                errands.run([] { throw std::runtime_error("disk full"); });
            } catch (const std::runtime_error& e) {
                return std::string(e.what());
            }
            return std::string("nothing thrown");
        });
        auto later =
            std::async(std::launch::async, [&] { return errands.run([&] { laterRan = true; }); });
        QCOMPARE(handOnUntil(errands, sink, thrown), std::string("disk full"));
        QVERIFY(handOnUntil(errands, sink, later));
        QVERIFY(laterRan.load());
        // The producer goes on: another errand runs.
        auto again = std::async(std::launch::async, [&] { return errands.run([] {}); });
        QVERIFY(handOnUntil(errands, sink, again));
    }

    // The sink throws while the marks are handed on: the errand taken with them is
    // released (it did not run), its caller does not wait forever.
    void aThrowingSinkReleasesTheErrandsItTook() {
        ProducerErrands errands;
        CountingSink sink;
        sink.throwOnMark = true;
        errands.mark(1, "before the flush");
        std::atomic<bool> ran{false};
        auto asked =
            std::async(std::launch::async, [&] { return errands.run([&] { ran = true; }); });
        bool threw = false;
        while (asked.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
            try {
                errands.handOn(sink);
            } catch (const std::bad_alloc&) {
                threw = true;
            }
        }
        QVERIFY(threw);
        // Released, whether it ran or not in the same turn: never waiting.
        (void)asked.get();
    }

    void marksAreCappedInBytes() {
        ProducerErrands errands;
        CountingSink sink;
        const std::string text(4000, 'm');
        const size_t fits = ProducerErrands::kMaxMarkBytes / text.size();
        for (size_t i = 0; i < fits + 50; ++i)
            errands.mark(i, text);
        errands.handOn(sink);
        QCOMPARE(sink.marks, fits);
    }
};

QTEST_GUILESS_MAIN(TestProducerErrands)
#include "test_producer_errands.moc"
