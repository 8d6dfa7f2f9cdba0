// `--native-stacks` against real Python processes, on every interpreter present (3.8-3.15,
// pyenv's, Debian's static build and the sid chroot's): with --blocking, libc's qsort
// calling back into Python through ctypes and a C++ library the test compiles with and
// without frame pointers; without pausing (perf events), C++ work that lasts
// milliseconds, and the qsort callbacks, whose fast changes must never show as a mixed
// stack. A stack is checked frame by frame: the Python caller, the C frames in call
// order, the Python callback; and nothing is left stopped.
#include "record_test_helpers.h"
#include "tests/support/perf_events.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope;
using namespace gilscope::test;

namespace {

// "func (file:line)" or "func (library)" -> func; "file" or "library" in *where.
QString funcOf(const QString& frame, QString* where = nullptr) {
    const qsizetype open = frame.lastIndexOf(" (");
    if (where) *where = open < 0 ? QString() : frame.mid(open + 2).chopped(1);
    return open < 0 ? frame : frame.left(open);
}

// Whether `expected` appear in `names` in that order (others may lie between).
bool inOrder(const QStringList& names, const QStringList& expected) {
    qsizetype at = -1;
    for (const QString& e : expected) {
        const qsizetype i = names.indexOf(e, at + 1);
        if (i < 0) return false;
        at = i;
    }
    return true;
}

// Builds tests/targets/demo_callback.cpp into DIR/libdemo.so; empty on failure.
QString buildDemoLibrary(const QTemporaryDir& dir, const QString& flags) {
    const QString cxx = QStandardPaths::findExecutable("c++");
    if (cxx.isEmpty()) return {};
    const QString lib = dir.filePath("libdemo.so");
    QProcess build;
    build.start(cxx, {"-O2", "-g0", "-shared", "-fPIC", flags, "-o", lib,
                      targetsDir() + "/demo_callback.cpp"});
    if (!build.waitForFinished(120000) || build.exitCode() != 0) {
        qWarning("%s", build.readAllStandardError().constData());
        return {};
    }
    return lib;
}

double errorRatePct(const QString& out) {
    const auto m = QRegularExpression("Error rate: ([0-9.]+)%").match(out);
    return m.hasMatch() ? m.captured(1).toDouble() : 100.0;
}

} // namespace

class TestNativeStacks : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

    // Records `pid` for a second with --native-stacks and `extra` into a collapsed file in
    // dir; its stacks, or empty (with the failure in *r).
    static QMap<QString, qint64> record(qint64 pid, const QStringList& extra,
                                        const QTemporaryDir& dir, RunResult* r) {
        const QString out = dir.filePath("native.txt");
        *r = runGilscope(
            QStringList{"attach", QString::number(pid), "-d", "1", "--native-stacks", "-o", out} +
            extra);
        bool ok = false;
        auto stacks = readCollapsed(out, &ok);
        if (r->exitCode != 0 || !ok) stacks.clear();
        return stacks;
    }

private slots:
    void initTestCase() {
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        printTestedInterpreters(all_);
    }

    // sort_forever -> qsort (libc) -> ... -> py_cmp, in that order, for most samples.
    void qsortCallbackInCallOrder_data() { addInterpreterRows(all_); }
    void qsortCallbackInCallOrder() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "qsort_callback.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        RunResult r;
        const auto stacks = record(target.pid(), {"--blocking"}, dir, &r);
        QVERIFY2(!stacks.isEmpty(), qPrintable(describe(r)));
        qint64 inCallback = 0, ordered = 0;
        for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
            QStringList names, where;
            for (const QString& f : it.key().split(';')) {
                QString w;
                names << funcOf(f, &w);
                where << w;
            }
            // Start-up frames (_start, main, Py_RunMain...) are folded: Python's root stays.
            QVERIFY2(names.first() == "<module>", qPrintable(it.key()));
            QVERIFY2(!names.contains("_PyEval_EvalFrameDefault"), qPrintable(it.key()));
            if (names.last() != "py_cmp") continue;
            inCallback += it.value();
            const qsizetype caller = names.indexOf("sort_forever");
            qsizetype qsort = -1;
            for (qsizetype i = 0; i < names.size(); ++i)
                if (names[i].startsWith("qsort") && where[i].startsWith("libc.so")) qsort = i;
            if (caller >= 0 && qsort > caller && names.size() - 1 > qsort) ordered += it.value();
        }
        QVERIFY2(inCallback >= 50, qPrintable(QStringList(stacks.keys()).join('\n')));
        QVERIFY2(ordered * 100 >= inCallback * 95,
                 qPrintable(QString("%1 of %2 in order\n").arg(ordered).arg(inCallback) +
                            QStringList(stacks.keys()).join('\n')));
        QVERIFY2(errorRatePct(r.out + r.err) <= 5.0, qPrintable(describe(r)));
        QVERIFY2(nothingStopped(target.pid()), "a thread of the target was left stopped");
        qInfo(
            "%s: %lld samples in py_cmp, %lld in order; %s", qPrintable(interpreter.label),
            inCallback, ordered,
            qPrintable(QRegularExpression("Error rate: [0-9.]+%").match(r.out + r.err).captured()));
    }

    // C++ frames, demangled, in call order, from a library built with and without frame
    // pointers (the CFI unwinds both).
    void cppFramesDemangledInOrder_data() {
        QTest::addColumn<QString>("flags");
        QTest::newRow("frame pointers") << "-fno-omit-frame-pointer";
        QTest::newRow("no frame pointers") << "-fomit-frame-pointer";
    }
    void cppFramesDemangledInOrder() {
        QFETCH(QString, flags);
        Interpreter host;
        for (const Interpreter& i : all_)
            if (!i.inChroot) host = i; // the newest on the host
        QVERIFY(host.minor > 0);
        QTemporaryDir dir;
        const QString lib = buildDemoLibrary(dir, flags);
        QVERIFY2(!lib.isEmpty(), "cannot build the test library with c++");
        TargetOptions options;
        options.args = {lib};
        TargetProcess target(host, "cpp_callback.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        RunResult r;
        const auto stacks = record(target.pid(), {"--blocking"}, dir, &r);
        QVERIFY2(!stacks.isEmpty(), qPrintable(describe(r)));
        const QStringList expected = {"visit_forever", "demo_run",
                                      "demo::runTwice(int (*)(int), int)",
                                      "demo::Visitor<int>::visit(int (*)(int), int)", "py_visit"};
        qint64 inCallback = 0, ordered = 0;
        for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
            QStringList names;
            for (const QString& f : it.key().split(';'))
                names << funcOf(f);
            if (names.last() != "py_visit") continue;
            inCallback += it.value();
            if (inOrder(names, expected)) ordered += it.value();
        }
        QVERIFY2(inCallback >= 50, qPrintable(QStringList(stacks.keys()).join('\n')));
        QVERIFY2(ordered * 100 >= inCallback * 95,
                 qPrintable(QString("%1 of %2 in order\n").arg(ordered).arg(inCallback) +
                            QStringList(stacks.keys()).join('\n')));
    }

    // Without pausing (perf events): C work that lasts milliseconds pairs with the Python
    // stack read just after the kernel's sample, on every interpreter.
    void withoutPausingLongCWork_data() { addInterpreterRows(all_); }
    void withoutPausingLongCWork() {
        QFETCH(Interpreter, interpreter);
        if (const QString why = perfEventsRefused(); !why.isEmpty()) QSKIP(qPrintable(why));
        QTemporaryDir dir;
        const QString lib = buildDemoLibrary(dir, "-fno-omit-frame-pointer");
        QVERIFY(!lib.isEmpty());
        TargetOptions options;
        options.args = {lib};
        options.bindDirs = {dir.path()};
        TargetProcess target(interpreter, "cpp_spin.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        RunResult r;
        const auto stacks = record(target.pid(), {}, dir, &r);
        QVERIFY2(!stacks.isEmpty(), qPrintable(describe(r)));
        const QStringList expected = {"spin_forever", "demo_spin", "demo::spinFor(unsigned long)"};
        qint64 spinning = 0, ordered = 0;
        for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
            QStringList names;
            for (const QString& f : it.key().split(';'))
                names << funcOf(f);
            QVERIFY2(names.first() == "<module>", qPrintable(it.key()));
            if (!names.contains("demo::spinFor(unsigned long)")) continue;
            spinning += it.value();
            if (inOrder(names, expected)) ordered += it.value();
        }
        QVERIFY2(spinning >= 50, qPrintable(QStringList(stacks.keys()).join('\n')));
        QCOMPARE(ordered, spinning); // a merged stack is never out of order
        QVERIFY2(errorRatePct(r.out + r.err) <= 5.0, qPrintable(describe(r)));
        QVERIFY2(nothingStopped(target.pid()), "the target was traced");
        qInfo(
            "%s: %lld samples in demo::spinFor; %s", qPrintable(interpreter.label), spinning,
            qPrintable(QRegularExpression("Error rate: [0-9.]+%").match(r.out + r.err).captured()));
    }

    // Without pausing, callbacks every ~10 µs change the stack between the kernel's sample
    // and the Python read: those samples are errors (counted), and every stack that is
    // shown is in call order, never a mix.
    void withoutPausingNeverMixes() {
        QVERIFY(!all_.isEmpty());
        if (const QString why = perfEventsRefused(); !why.isEmpty()) QSKIP(qPrintable(why));
        Interpreter host;
        for (const Interpreter& i : all_)
            if (!i.inChroot && i.minor >= 12) host = i; // 3.12+: paired by entry address
        if (host.minor == 0) QSKIP("no host interpreter 3.12+");
        TargetProcess target(host, "qsort_callback.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        RunResult r;
        const auto stacks = record(target.pid(), {}, dir, &r);
        QVERIFY2(!stacks.isEmpty(), qPrintable(describe(r)));
        qint64 inCallback = 0;
        for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
            QStringList names;
            for (const QString& f : it.key().split(';'))
                names << funcOf(f);
            if (names.last() != "py_cmp") continue;
            inCallback += it.value();
            QVERIFY2(inOrder(names, {"sort_forever", "qsort_r", "py_cmp"}) ||
                         inOrder(names, {"sort_forever", "qsort", "py_cmp"}),
                     qPrintable(it.key()));
        }
        qInfo(
            "%s without pausing: %lld samples in py_cmp; %s", qPrintable(host.label), inCallback,
            qPrintable(QRegularExpression("Error rate: [0-9.]+%").match(r.out + r.err).captured()));
    }
};

QTEST_GUILESS_MAIN(TestNativeStacks)
#include "test_native_stacks.moc"
