// PageCache over a made-up memory: a stack read word by word costs a read per page, reads
// that cross pages or run off the end of a mapping come back as they would uncached, and
// clear() forgets what it holds (the stack moved on).
#include "core/remote/page_cache.h"
#include "tests/unit/remote/fake_memory.h"

#include <QTest>

#include <cstdint>
#include <vector>

using gilscope::remote::PageCache;
using gilscope::test::FakeMemory;

namespace {
constexpr uint64_t kStack = 0x7ffd0000;
constexpr uint64_t kPage = PageCache::kPage;

// Three pages whose every 8-byte word holds its own address.
void mapStack(FakeMemory& mem) {
    mem.map(kStack, 3 * kPage);
    for (uint64_t a = kStack; a < kStack + 3 * kPage; a += 8)
        mem.put<uint64_t>(a, a);
}
} // namespace

class TestPageCache : public QObject {
    Q_OBJECT
private slots:
    void wordsOfAPageCostOneRead() {
        FakeMemory mem;
        mapStack(mem);
        PageCache pages(mem);
        for (uint64_t a = kStack; a < kStack + 3 * kPage; a += 8) {
            uint64_t v = 0;
            QVERIFY(pages.readValue(a, v));
            QCOMPARE(v, a);
        }
        QCOMPARE(mem.calls(), size_t(3));
    }

    void readAcrossPages() {
        FakeMemory mem;
        mapStack(mem);
        PageCache pages(mem);
        std::vector<uint64_t> words(kPage / 8 + 2);
        const uint64_t from = kStack + kPage - 8;
        QVERIFY(pages.read(from, words.data(), words.size() * 8));
        for (size_t i = 0; i < words.size(); ++i)
            QCOMPARE(words[i], from + i * 8);
    }

    void endOfTheMappingIsAShortRead() {
        FakeMemory mem;
        mapStack(mem);
        PageCache pages(mem);
        uint8_t buf[64];
        const uint64_t last = kStack + 3 * kPage - 16;
        QCOMPARE(pages.readPartial(last, buf, sizeof buf), size_t(16));
        uint64_t v = 0;
        QVERIFY(!pages.readValue(kStack + 3 * kPage, v)); // the page after: unmapped
        QVERIFY(!pages.readValue(kStack - 8, v));
        QCOMPARE(pages.lastErrno(), EFAULT);
        QVERIFY(pages.readValue(kStack, v)); // still serves what is mapped
        QCOMPARE(v, kStack);
    }

    void clearForgetsWhatChanged() {
        FakeMemory mem;
        mapStack(mem);
        PageCache pages(mem);
        uint64_t v = 0;
        QVERIFY(pages.readValue(kStack + 8, v));
        mem.put<uint64_t>(kStack + 8, 42);
        QVERIFY(pages.readValue(kStack + 8, v));
        QCOMPARE(v, kStack + 8); // the copy, as long as the thread stays put
        pages.clear();
        QVERIFY(pages.readValue(kStack + 8, v));
        QCOMPARE(v, uint64_t(42));
    }

    void manyPagesStayBounded() {
        FakeMemory mem;
        const size_t n = PageCache::kMaxPages + 8;
        mem.map(kStack, n * kPage);
        for (size_t i = 0; i < n; ++i)
            mem.put<uint64_t>(kStack + i * kPage, i);
        PageCache pages(mem);
        for (int round = 0; round < 2; ++round)
            for (size_t i = 0; i < n; ++i) {
                uint64_t v = 0;
                QVERIFY(pages.readValue(kStack + i * kPage, v));
                QCOMPARE(v, uint64_t(i));
            }
        QVERIFY(mem.calls() > n); // past kMaxPages, pages are read again
    }

    void readManyStopsAtTheFirstUnreadRange() {
        FakeMemory mem;
        mapStack(mem);
        PageCache pages(mem);
        uint64_t a = 0, b = 0, c = 0;
        const iovec local[] = {{&a, 8}, {&b, 8}, {&c, 8}};
        const iovec remote[] = {{reinterpret_cast<void*>(kStack), 8},
                                {reinterpret_cast<void*>(kStack + 5 * kPage), 8},
                                {reinterpret_cast<void*>(kStack + 16), 8}};
        QCOMPARE(pages.readMany(local, remote), size_t(1));
        QCOMPARE(a, kStack);
    }

    void topOfTheAddressSpace() {
        FakeMemory mem;
        PageCache pages(mem);
        uint8_t buf[32];
        QCOMPARE(pages.readPartial(UINT64_MAX - 7, buf, sizeof buf), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestPageCache)
#include "test_page_cache.moc"
