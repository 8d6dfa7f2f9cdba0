#include "core/collapsed/collapsed_writer.h"
#include "core/util/temp_dir.h"

#include <QTest>

#include <fstream>
#include <sstream>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

FrameId frame(FrameRegistry& r, const char* func, const char* file, int line) {
    FrameInfo f;
    f.funcname = r.internString(func);
    f.filename = r.internString(file);
    f.line = line;
    return r.internFrame(f);
}

void add(CollapsedWriter& w, std::vector<FrameId> leafFirst, std::vector<uint64_t> times,
         uint64_t tid = 1) {
    SampleBatch b;
    b.threadId = tid;
    b.frames = leafFirst;
    b.timestampsUs = times;
    w.addBatch(b);
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

class TestCollapsed : public QObject {
    Q_OBJECT
private slots:
    void oneLinePerUniqueStackRootFirst() {
        FrameRegistry reg;
        const FrameId main = frame(reg, "main", "app.py", 30);
        const FrameId heavy = frame(reg, "heavy", "app.py", 10);
        const FrameId light = frame(reg, "light", "lib/x.py", 3);
        CollapsedWriter w;
        w.begin(reg, RecordingInfo{});
        add(w, {heavy, main}, {1, 2, 3}); // a run-length batch counts 3
        add(w, {light, main}, {4});
        add(w, {heavy, main}, {5}, 2); // another thread, same stack: merged
        add(w, {}, {6});               // empty stack: nothing to draw
        QCOMPARE(w.totalSamples(), uint64_t(5));
        QCOMPARE(w.uniqueStacks(), size_t(2));
        QCOMPARE(w.render(), std::string("main (app.py:30);heavy (app.py:10) 4\n"
                                         "main (app.py:30);light (lib/x.py:3) 1\n"));
    }

    // A thread's repeated stack is counted through its last one (no lookup), and a thread
    // that moves on, comes back, or shares another's stack still counts right.
    void repeatedStacksOfAThreadCountRight() {
        FrameRegistry reg;
        const FrameId main = frame(reg, "main", "app.py", 30);
        const FrameId a = frame(reg, "a", "app.py", 10);
        const FrameId b = frame(reg, "b", "app.py", 20);
        CollapsedWriter w;
        w.begin(reg, RecordingInfo{});
        add(w, {a, main}, {1}, 1);
        add(w, {a, main}, {2, 3}, 1); // the same again: 3 so far
        add(w, {a, main}, {4}, 2);    // another thread's first: merged
        add(w, {b, main}, {5}, 1);    // thread 1 moves on
        add(w, {main}, {6}, 1);       // a prefix of its last stack is another stack
        add(w, {a, main}, {7}, 1);    // and back
        add(w, {b, main}, {8}, 2);
        QCOMPARE(w.totalSamples(), uint64_t(8));
        QCOMPARE(w.render(), std::string("main (app.py:30);a (app.py:10) 5\n"
                                         "main (app.py:30);b (app.py:20) 2\n"
                                         "main (app.py:30) 1\n"));
    }

    void separatorsInNamesCannotBreakLines() {
        FrameRegistry reg;
        const FrameId odd = frame(reg, "<lambda>", "we;ird\nname.py", -1);
        CollapsedWriter w;
        w.begin(reg, RecordingInfo{});
        add(w, {odd}, {1});
        QCOMPARE(w.render(), std::string("<lambda> (we,ird name.py) 1\n"));
    }

    void framesThatRenderAlikeShareALine() {
        FrameRegistry reg;
        FrameInfo a;
        a.funcname = reg.internString("f");
        a.filename = reg.internString("m.py");
        a.line = 4;
        a.column = 1;
        FrameInfo b = a;
        b.column = 9; // another expression on the same line: another FrameId
        const FrameId fa = reg.internFrame(a), fb = reg.internFrame(b);
        QVERIFY(fa != fb);
        CollapsedWriter w;
        w.begin(reg, RecordingInfo{});
        add(w, {fa}, {1, 2});
        add(w, {fb}, {3});
        QCOMPARE(w.render(), std::string("f (m.py:4) 3\n"));
    }

    void equalCountsSortByText() {
        FrameRegistry reg;
        const FrameId b = frame(reg, "b", "m.py", 2);
        const FrameId a = frame(reg, "a", "m.py", 1);
        CollapsedWriter w;
        w.begin(reg, RecordingInfo{});
        add(w, {b}, {1});
        add(w, {a}, {2});
        QCOMPARE(w.render(), std::string("a (m.py:1) 1\nb (m.py:2) 1\n"));
    }

    void writesAtomically() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        FrameRegistry reg;
        const FrameId f = frame(reg, "f", "m.py", 1);
        CollapsedWriter w;
        w.begin(reg, RecordingInfo{});
        add(w, {f}, {1, 2});
        const fs::path out = dir->path() / "collapsed_1.txt";
        QVERIFY(w.writeTo(out).ok());
        QCOMPARE(slurp(out), std::string("f (m.py:1) 2\n"));
        // A directory that does not exist: an error, and no stray file anywhere.
        const Status bad = w.writeTo(dir->path() / "missing" / "x.txt");
        QVERIFY(!bad.ok());
        QVERIFY(!bad.error().message.empty());
        QCOMPARE(std::distance(fs::directory_iterator(dir->path()), fs::directory_iterator()), 1);
    }
};

QTEST_GUILESS_MAIN(TestCollapsed)
#include "test_collapsed.moc"
