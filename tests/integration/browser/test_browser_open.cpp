// `gilscope open FILE.json` and `--gecko --browser` hand the profile to the Firefox
// Profiler: the browser command gets the profiler's /from-url/ address, the profile is
// served from 127.0.0.1 with the profiler's CORS header, and gilscope exits once it has
// been fetched. A stand-in browser (fake_browser.py) fetches it as the page would.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using gilscope::test::describe;
using gilscope::test::runGilscope;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void useFakeBrowser(const QString& out) {
    qputenv("GILSCOPE_BROWSER",
            QStringLiteral("python3 %1 %2")
                .arg(gilscope::test::sourceDir() +
                         QStringLiteral("/tests/integration/browser/fake_browser.py"),
                     out)
                .toLocal8Bit());
}

} // namespace

class TestBrowserOpen : public QObject {
    Q_OBJECT
private slots:
    void openServesTheFileToTheProfiler() {
        QTemporaryDir dir;
        const QString profile = dir.filePath(QStringLiteral("p.json"));
        QFile f(profile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"meta\":{},\"threads\":[]}");
        f.close();
        const QString got = dir.filePath(QStringLiteral("got"));
        useFakeBrowser(got);
        const auto r = runGilscope({QStringLiteral("open"), profile, QStringLiteral("--profiler"),
                                    QStringLiteral("https://profiler.example.org")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QCOMPARE(readAll(got), QByteArray("https://profiler.example.org\n") + readAll(profile));
    }

    void openRefusesAMissingFile() {
        const auto r = runGilscope({QStringLiteral("open"), QStringLiteral("/nonexistent.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("/nonexistent.json")), qPrintable(describe(r)));
    }

    void browserNeedsGecko() {
        const auto r = runGilscope(
            {QStringLiteral("attach"), QStringLiteral("1"), QStringLiteral("--browser")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--browser")), qPrintable(describe(r)));
    }

    // attach --gecko --browser: the written profile is what the browser gets.
    void attachGeckoBrowser() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        gilscope::test::TargetProcess target(all.last(), QStringLiteral("three_deep.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString got = dir.filePath(QStringLiteral("got"));
        useFakeBrowser(got);
        const QString out = dir.filePath(QStringLiteral("out.json"));
        const auto r =
            runGilscope({QStringLiteral("attach"), QString::number(target.pid()),
                         QStringLiteral("--gecko"), QStringLiteral("--browser"),
                         QStringLiteral("-d"), QStringLiteral("1"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QByteArray written = readAll(out);
        QVERIFY(written.size() > 100);
        const QByteArray fetched = readAll(got);
        QVERIFY(fetched.endsWith(written));
        QVERIFY(fetched.startsWith("https://"));
    }
};

QTEST_GUILESS_MAIN(TestBrowserOpen)
#include "test_browser_open.moc"
