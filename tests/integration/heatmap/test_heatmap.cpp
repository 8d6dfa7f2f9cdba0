// --heatmap on real processes: a 70/30 target's heavy and light lines carry its split on
// every interpreter present; a replayed .bin gives per line exactly what its collapsed
// stacks give; a source that cannot be read says so; hostile names and sources are escaped;
// the pages render in headless Chromium; and for CPython-written fixtures every line
// carries the same own and total samples as CPython 3.15's own heatmap.
#include "heatmap_pages.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"
#include "tests/support/split_recording.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <unistd.h>

using namespace gilscope::test;

namespace {

// The line of `script` that holds `text` (1-based), or 0.
int lineOf(const QString& script, const QString& text) {
    const QStringList lines = readAll(script).split('\n');
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].contains(text)) return i + 1;
    return 0;
}

// Per line of `file`, own and total as counted from collapsed stacks ("f (file:line);... N").
FileCounts fromCollapsed(const QString& collapsed, const QString& file) {
    static const QRegularExpression frame("^(.*) \\((.*):(-?\\d+)\\)$");
    FileCounts out;
    for (const QString& row : collapsed.split('\n', Qt::SkipEmptyParts)) {
        const qsizetype space = row.lastIndexOf(' ');
        const qint64 n = row.mid(space + 1).toLongLong();
        const QStringList frames = row.left(space).split(';');
        QSet<int> seen;
        for (int i = 0; i < frames.size(); ++i) {
            const auto m = frame.match(frames[i]);
            if (!m.hasMatch() || m.captured(2) != file) continue;
            const int line = m.captured(3).toInt();
            if (i == frames.size() - 1) out[line].own += n;
            if (!seen.contains(line)) out[line].total += n;
            seen.insert(line);
        }
    }
    return out;
}

QString describeCounts(const FileCounts& c) {
    QStringList parts;
    for (auto it = c.begin(); it != c.end(); ++it)
        parts << QString("%1:%2/%3").arg(it.key()).arg(it->own).arg(it->total);
    return parts.join(' ');
}

} // namespace

class TestHeatmap : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    // heavy_part() takes 70% of each loop: its call line's total against light_part()'s
    // is the split the target measured, and the index names the file. The recording ends
    // with the target, so its source comes from /proc/PID/root read while it ran.
    void liveHeatmapShowsTheSplit_data() { addInterpreterRows(all_); }
    void liveHeatmapShowsTheSplit() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        TargetOptions options;
        options.args = {"3", "70"};
        const QString script = targetScript("heavy_light_split.py");
        TargetProcess target(interpreter, script, options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString out = dir.filePath("hm");
        const RunResult r = runGilscope({"attach", "--heatmap", "--rt-priority", "1", "-o",
                                         out + ".html", QString::number(target.pid())},
                                        dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("Heatmap output written to"), qPrintable(describe(r)));
        const auto share = target.readLine(60000);
        QVERIFY(share && share->startsWith("SHARE "));
        const double truth = share->mid(6).toDouble();

        const auto index = gilscopeIndex(out); // -o x.html names the folder x, as CPython
        QString page;
        for (auto it = index.begin(); it != index.end(); ++it)
            if (it.key().endsWith("/heavy_light_split.py")) page = it.value();
        QVERIFY2(!page.isEmpty(), qPrintable(readAll(out + "/index.html").left(3000)));
        const FileCounts counts = gilscopePage(out + "/" + page);
        const int heavyLine = lineOf(script, "    heavy_part()");
        const int lightLine = lineOf(script, "    light_part()");
        QVERIFY(heavyLine > 0 && lightLine > 0);
        const double heavy = double(counts.value(heavyLine).total);
        const double light = double(counts.value(lightLine).total);
        QVERIFY2(heavy + light > 300, qPrintable(describeCounts(counts)));
        const double pct = 100 * heavy / (heavy + light);
        qInfo("%s: heavy_part() line %d: %.0f, light_part() line %d: %.0f: %.1f%% (target: %.1f%%)",
              qPrintable(interpreter.label), heavyLine, heavy, lightLine, light, pct, truth);
        QVERIFY2(std::abs(pct - truth) <= 10, qPrintable(describeCounts(counts)));
        // busy()'s loop is the leaf of both: their own samples are on its lines.
        const QString text = readAll(out + "/" + page);
        QVERIFY2(text.contains("(in process " + QString::number(target.pid()) + "&#39;s root)"),
                 qPrintable(text.left(3000)));
        QVERIFY(text.contains("heavy_part</a>") && text.contains("light_part</a>"));
        QVERIFY(text.contains("Content-Security-Policy"));
    }

    // A replay gives, line for line, what the same .bin's collapsed stacks give.
    void replayMatchesCollapsedStacks() {
        const Interpreter interpreter = all_.last();
        QTemporaryDir dir;
        const SplitRecording rec = recordSplit(interpreter, dir.path(), "rec", 70, 2);
        QVERIFY2(rec.error.isEmpty(), qPrintable(rec.error));
        RunResult r = runGilscope({"replay", rec.bin, "--heatmap", "-o", dir.filePath("hm")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        r = runGilscope({"replay", rec.bin, "--collapsed", "-o", "-"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const auto index = gilscopeIndex(dir.filePath("hm"));
        QString file;
        for (auto it = index.begin(); it != index.end(); ++it)
            if (it.key().endsWith("/heavy_light_split.py")) file = it.key();
        QVERIFY2(!file.isEmpty(), qPrintable(QStringList(index.keys()).join(' ')));
        const FileCounts expected = fromCollapsed(r.out, file);
        const FileCounts pages = gilscopePage(dir.filePath("hm/" + index[file]));
        QVERIFY(!expected.isEmpty());
        QCOMPARE(describeCounts(pages), describeCounts(expected));
    }

    // Replaying after the script is gone: the page says so, and still lists the lines.
    void unreadableSourceIsSaid() {
        Interpreter interpreter = all_.first();
        for (const Interpreter& in : all_)
            if (!in.inChroot) interpreter = in;
        QTemporaryDir dir;
        const QString script = dir.filePath("gone_soon.py");
        QVERIFY(QFile::copy(targetScript("heavy_light.py"), script));
        QVERIFY(QFile::copy(targetScript("_ready.py"), dir.filePath("_ready.py")));
        TargetProcess target(interpreter, script);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString bin = dir.filePath("rec.bin");
        RunResult r = runGilscope(
            {"attach", "-d", "1", "--binary", "-o", bin, QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        target.terminate();
        QVERIFY(QFile::remove(script));
        r = runGilscope({"replay", bin, "--heatmap", "-o", dir.filePath("hm")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString page = gilscopeIndex(dir.filePath("hm")).value(script);
        QVERIFY2(!page.isEmpty(), qPrintable(readAll(dir.filePath("hm/index.html"))));
        const QString text = readAll(dir.filePath("hm/" + page));
        QVERIFY2(text.contains("Source not shown: ") && text.contains("does not exist"),
                 qPrintable(text.left(4000)));
        QVERIFY(!gilscopePage(dir.filePath("hm/" + page)).isEmpty());
    }

    // A file name and a source full of markup come out as text; bytes that are not UTF-8
    // as U+FFFD; an existing folder that is not a heatmap is refused and kept.
    void hostileNamesAreEscaped() {
        Interpreter interpreter = all_.first();
        for (const Interpreter& in : all_)
            if (!in.inChroot) interpreter = in;
        QTemporaryDir dir;
        const QString script = dir.filePath("x<script>&\"'.py");
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("from _ready import ready\n"
                "def spin(): # </td></tr><script>alert(1)</script><img src=http://x/>\n"
                "    while True: pass\n"
                "ready()\nspin()\n");
        f.close();
        QVERIFY(QFile::copy(targetScript("_ready.py"), dir.filePath("_ready.py")));
        TargetProcess target(interpreter, script);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString out = dir.filePath("hm");
        QVERIFY(QDir().mkpath(dir.filePath("mine")));
        QVERIFY(QFile(dir.filePath("mine/keep.txt")).open(QIODevice::WriteOnly));
        RunResult r = runGilscope({"attach", "-d", "1", "--heatmap", "-o", dir.filePath("mine"),
                                   QString::number(target.pid())});
        QVERIFY2(r.exitCode == 2 && r.err.contains("holds other files"), qPrintable(describe(r)));
        QVERIFY(QFile::exists(dir.filePath("mine/keep.txt")));
        for (int run = 0; run < 2; ++run) { // the second replaces the first
            r = runGilscope(
                {"attach", "-d", "1", "--heatmap", "-o", out, QString::number(target.pid())});
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        }
        const QString index = readAll(out + "/index.html");
        QVERIFY2(index.contains("x&lt;script&gt;&amp;&quot;&#39;.py"), qPrintable(index));
        const QString page = readAll(out + "/" + gilscopeIndex(out).value(script));
        QVERIFY(page.contains("&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        QVERIFY(!page.contains("<script") && !page.contains("<img"));
        QVERIFY(!QDir(dir.path())
                     .entryList(QDir::Hidden | QDir::AllEntries)
                     .join(' ')
                     .contains(".tmp-"));

        GILSCOPE_REQUIRE_SHARED();
        r = runGilscope(
            {"replay", tachFixturePath("utf8-replace"), "--heatmap", "-o", dir.filePath("bad")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QFile raw(dir.filePath("bad/index.html"));
        QVERIFY(raw.open(QIODevice::ReadOnly));
        const QByteArray bytes = raw.readAll();
        QVERIFY(isUtf8(bytes) && bytes.contains("\xef\xbf\xbd"));
    }

    // Both pages in headless Chromium: the index names the file, the page both functions.
    void pagesRenderInChromium() {
        GILSCOPE_REQUIRE(!chromiumBinary().isEmpty(),
                         "chromium is absent: scripts/install-deps.sh installs it for the tests");
        QTemporaryDir dir;
        const SplitRecording rec = recordSplit(all_.last(), dir.path(), "rec", 70, 1);
        QVERIFY2(rec.error.isEmpty(), qPrintable(rec.error));
        const RunResult r = runGilscope({"replay", rec.bin, "--heatmap", "-o", dir.filePath("hm")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QString why;
        const QString index = renderedDom(dir.filePath("hm/index.html"), &why);
        QVERIFY2(index.contains("heavy_light_split.py"), qPrintable(why + index.left(2000)));
        QString page;
        for (auto [file, name] : gilscopeIndex(dir.filePath("hm")).asKeyValueRange())
            if (file.endsWith("heavy_light_split.py")) page = name;
        const QString dom = renderedDom(dir.filePath("hm/" + page), &why);
        QVERIFY2(dom.contains("heavy_part") && dom.contains("light_part"),
                 qPrintable(why + dom.left(2000)));
    }

    void sameCountsAsCPython_data() {
        QTest::addColumn<QString>("fixture");
        for (const char* f :
             {"real-315", "medium", "unicode", "utf8-replace", "stats", "rle-long", "tiny"})
            QTest::newRow(f) << QString(f);
    }
    // CPython's page lists a line's counts only when it could read the source: the files
    // the fixture names are given placeholder sources inside the chroot, in a mount
    // namespace of CPython's own, so nothing is left behind.
    void sameCountsAsCPython() {
        GILSCOPE_REQUIRE_SHARED();
        GILSCOPE_REQUIRE(chrootReady(), "the sid chroot with python3.15 (CPython's reference) is "
                                        "absent: run scripts/setup-python-chroot.sh (as root)");
        GILSCOPE_REQUIRE(::geteuid() == 0, "placing sources in the chroot needs root");
        QFETCH(QString, fixture);
        QTemporaryDir host;
        const QString scratch =
            QDir(chrootDir() + "/tmp")
                .filePath("gilscope-heatmap-" + QString::number(::getpid()) + "-" + fixture);
        QVERIFY(QDir().mkpath(scratch));
        struct Cleanup {
            QString dir;
            ~Cleanup() { QDir(dir).removeRecursively(); }
        } cleanup{scratch};
        const QString bin = scratch + "/x.bin";
        QVERIFY(QFile::copy(tachFixturePath(fixture), bin));
        RunResult mine = runGilscope({"replay", bin, "--heatmap", "-o", host.filePath("g")});
        QVERIFY2(mine.exitCode == 0, qPrintable(describe(mine)));
        const auto ours = gilscopeIndex(host.filePath("g"));
        QVERIFY(!ours.isEmpty());

        // Placeholders under <host>/src/<path>; each top directory bound over the chroot's.
        QStringList binds;
        for (const QString& file : ours.keys()) {
            if (!file.startsWith('/') || QFile::exists(chrootDir() + file)) continue;
            const QString top = file.section('/', 1, 1);
            if (top == "tmp" || top == "proc" || !QDir(chrootDir() + "/" + top).exists()) continue;
            const QString placeholder = host.filePath("src") + file;
            QVERIFY(QDir().mkpath(QFileInfo(placeholder).path()));
            QFile p(placeholder);
            QVERIFY(p.open(QIODevice::WriteOnly));
            const FileCounts lines = gilscopePage(host.filePath("g/" + ours[file]));
            p.write(QByteArray("pass\n").repeated(lines.isEmpty() ? 1 : lines.lastKey() + 1));
            if (!binds.contains(top))
                binds << "mount --bind '" + host.filePath("src/" + top) + "' '" + chrootDir() +
                             "/" + top + "' && ";
            binds.removeDuplicates();
        }
        const QString inside = "/tmp/" + QFileInfo(scratch).fileName();
        const RunResult theirs =
            runProgram("unshare",
                       {"-m", "--propagation", "private", "sh", "-c",
                        binds.join("") + "exec chroot '" + chrootDir() +
                            "' python3.15 -m profiling.sampling replay --heatmap -o " + inside +
                            "/c " + inside + "/x.bin"},
                       {}, 300000);
        QVERIFY2(theirs.exitCode == 0, qPrintable(describe(theirs)));
        const auto cpython = cpythonIndex(scratch + "/c");
        QCOMPARE(QStringList(ours.keys()), QStringList(cpython.keys()));
        int compared = 0;
        for (const QString& file : ours.keys()) {
            const QString cpythonText = readAll(scratch + "/c/" + cpython[file]);
            if (cpythonText.contains("Source file not available")) continue;
            const FileCounts a = gilscopePage(host.filePath("g/" + ours[file]));
            const FileCounts b = cpythonPage(scratch + "/c/" + cpython[file]);
            QVERIFY2(describeCounts(a) == describeCounts(b),
                     qPrintable(file + "\ngilscope: " + describeCounts(a) +
                                "\nCPython:  " + describeCounts(b)));
            ++compared;
        }
        qInfo("%s: %d of %d files compared line by line", qPrintable(fixture), compared,
              int(ours.size()));
        QVERIFY(compared > 0);
    }

private:
    static QString tachFixturePath(const QString& name) {
        return fixturePath("tach/" + name + ".bin");
    }
    QList<Interpreter> all_;
};

QTEST_GUILESS_MAIN(TestHeatmap)
#include "test_heatmap.moc"
