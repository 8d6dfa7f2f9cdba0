// The recording options bar's Native frames and Async-aware (issue 12), driving the real
// window against real targets: <native> frames and asyncio task names reach the analysis
// views; options the selected process's version cannot give, or that CPython refuses
// together, disable Record with the reason; everything is remembered in QSettings.

#include "core/analysis/module_color.h"
#include "tests/gui/gui_test_helpers.h"
#include "tests/support/perf_events.h"
#include "tests/support/python_interpreters.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/source_view.h"
#include "ui/analysis/top_functions_model.h"
#include "ui/live_figures.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/record_options_bar.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using gilscope::AsyncMode;
using gilscope::test::Interpreter;
using gilscope::test::TargetProcess;
using gilscope::ui::MainWindow;
using gilscope::ui::RecordOptionsBar;
using gilscope::ui::TopFunctionsModel;

namespace {

struct Harness {
    MainWindow window;
    QStringList messages;
    explicit Harness(QSettings* settings = nullptr) : window(settings) {
        window.prompts().showMessage = [this](MainWindow::MessageKind, const QString&,
                                              const QString& m) { messages.append(m); };
        window.prompts().askUnsaved = [](const QString&, bool) {
            return MainWindow::UnsavedChoice::Discard;
        };
        window.show();
    }
    RecordOptionsBar* bar() const { return window.recordOptions(); }
    bool select(qint64 pid) {
        window.picker()->refreshNow();
        return window.picker()->selectPid(int(pid));
    }
    // Async-aware as CPython allows it: wall mode, the main thread.
    void chooseAsync(const QString& mode) {
        bar()->modeBox()->setCurrentIndex(bar()->modeBox()->findText(QStringLiteral("wall")));
        bar()->threadsBox()->setCurrentIndex(1);
        bar()->asyncBox()->setChecked(true);
        bar()->asyncModeBox()->setCurrentIndex(mode == QLatin1String("all") ? 1 : 0);
    }
};

// Functions the top-functions view lists.
QStringList topNames(MainWindow& w) {
    QStringList names;
    auto* m = w.analysis()->topModel();
    for (int r = 0; r < m->rowCount(); ++r)
        names << m->index(r, TopFunctionsModel::Name).data().toString();
    return names;
}

} // namespace

class TestRecordOptions : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

    // Records the selected process until the views list every name in `wanted`.
    void recordUntilListed(Harness& h, const QStringList& wanted) {
        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        QVERIFY2(h.window.recordAction()->isEnabled(),
                 qPrintable(h.window.recordAction()->toolTip()));
        h.window.recordAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        QVERIFY2(h.messages.isEmpty(), qPrintable(h.messages.join('\n')));
        auto listed = [&] {
            const QStringList names = topNames(h.window);
            for (const QString& n : wanted)
                if (!names.contains(n)) return false;
            return true;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(listed(), qPrintable(topNames(h.window).join(", ")), 60000);
        QSignalSpy ended(&h.window, &MainWindow::recordingEnded);
        h.window.stop();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QVERIFY2(h.messages.isEmpty(), qPrintable(h.messages.join('\n')));
        // The timeline drew the recording too.
        QVERIFY(h.window.figures()->stats().okTicks > 0);
        // And it exports, with the wanted frames in the profile.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("profile.json"));
        h.window.prompts().askSavePath = [&](const QString&, const QString&, const QString&) {
            return path;
        };
        h.window.prompts().askAfterExport = [](const QString&) {
            return MainWindow::ExportChoice::Close;
        };
        QSignalSpy done(&h.window, &MainWindow::exportFinished);
        h.window.exportProfile();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QJsonObject profile;
        qint64 samples = 0;
        QString error;
        QVERIFY2(gilscope::test::readGeckoProfile(path, &profile, &samples, &error),
                 qPrintable(error));
        QVERIFY(samples > 0);
        const QByteArray json = QJsonDocument(profile).toJson(QJsonDocument::Compact);
        for (const QString& n : wanted)
            QVERIFY2(json.contains(("\"" + n + "\"").toUtf8()), qPrintable(n));
        const QString problems = gilscope::test::checkGeckoProblems(path);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

private slots:
    void initTestCase() {
        all_ = gilscope::test::findInterpreters();
        gilscope::test::printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    void settingsRoundTrip() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        {
            Harness h(&settings);
            QVERIFY(!h.bar()->nativeBox()->isChecked());
            QVERIFY(!h.bar()->asyncBox()->isChecked());
            QVERIFY(!h.bar()->asyncModeBox()->isEnabled()); // only with Async-aware
            h.chooseAsync(QStringLiteral("all"));
            QVERIFY(h.bar()->asyncModeBox()->isEnabled());
            h.window.saveSettings();
        }
        {
            Harness h(&settings);
            QVERIFY(h.bar()->asyncBox()->isChecked());
            QCOMPARE(h.bar()->asyncModeBox()->currentIndex(), 1);
            auto o = h.bar()->options();
            QVERIFY2(o, o ? "" : o.error().message.c_str());
            QCOMPARE(o->read.asyncMode, AsyncMode::All);
            QVERIFY(!o->read.native);
            QVERIFY(h.bar()->summary().contains("async-aware (all tasks)"));
            h.bar()->asyncBox()->setChecked(false);
            h.bar()->nativeBox()->setChecked(true);
            h.window.saveSettings();
        }
        Harness h(&settings);
        QVERIFY(h.bar()->nativeBox()->isChecked());
        QVERIFY(!h.bar()->asyncBox()->isChecked());
        auto o = h.bar()->options();
        QVERIFY(o);
        QVERIFY(o->read.native);
        QCOMPARE(o->read.asyncMode, AsyncMode::Off);
    }

    // CPython's --async-aware conflicts, named in the bar, Record disabled with them.
    void conflictsDisableRecord() {
        const auto pythons = gilscope::test::findInterpreters(14);
        QVERIFY2(!pythons.isEmpty(), "no Python 3.14+: run scripts/setup-python-chroot.sh");
        TargetProcess target(pythons.last(), "async_tasks.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        QTRY_VERIFY_WITH_TIMEOUT(h.select(target.pid()), 60000);
        QVERIFY(h.window.recordAction()->isEnabled());
        QVERIFY(h.bar()->problemLabel()->isHidden());
        h.bar()->nativeBox()->setChecked(true);
        h.bar()->asyncBox()->setChecked(true); // with the defaults: mode all, all threads
        QVERIFY(!h.window.recordAction()->isEnabled());
        const QString why = h.bar()->problemLabel()->text();
        QVERIFY2(why.contains("Async-aware cannot be combined with Native frames, mode all, "
                              "All threads"),
                 qPrintable(why));
        QVERIFY(h.bar()->problemLabel()->isVisible());
        QVERIFY(h.window.recordAction()->toolTip().contains(why));
        QVERIFY(!h.bar()->options());
        // Asked anyway (double-click on the row): the message, and no recording.
        h.window.record();
        QCOMPARE(h.messages, QStringList{why});
        QVERIFY(!h.window.recording() && !h.window.attaching());
        h.bar()->nativeBox()->setChecked(false);
        h.chooseAsync(QStringLiteral("running"));
        QVERIFY(h.window.recordAction()->isEnabled());
        QVERIFY(h.bar()->problemLabel()->isHidden());
    }

    // A user who ticks Async-aware gets the settings it needs, not a refusal: mode wall, the
    // main thread, GC frames on, native frames off.
    void tickingAsyncTakesItsSettings() {
        Harness h;
        h.bar()->nativeBox()->setChecked(true);
        h.bar()->gcBox()->setChecked(false);
        h.bar()->modeBox()->setCurrentIndex(h.bar()->modeBox()->findText(QStringLiteral("all")));
        h.bar()->threadsBox()->setCurrentIndex(0); // all threads
        h.bar()->asyncBox()->click();
        QVERIFY(h.bar()->asyncBox()->isChecked());
        QCOMPARE(h.bar()->modeBox()->currentText(), QStringLiteral("wall"));
        QCOMPARE(h.bar()->threadsBox()->currentData().toBool(), false);
        QVERIFY(h.bar()->gcBox()->isChecked());
        QVERIFY(!h.bar()->nativeBox()->isChecked());
        QVERIFY(h.bar()->problem().isEmpty());
        QVERIFY(bool(h.bar()->options()));
        // A conflicting choice made afterwards is named.
        h.bar()->modeBox()->setCurrentIndex(h.bar()->modeBox()->findText(QStringLiteral("cpu")));
        QVERIFY(h.bar()->problem().contains(QStringLiteral("mode cpu")));
    }

    // Native frames: a <native> frame in the analysis views on 3.11+; on 3.8-3.10 Record is
    // disabled with the version named.
    void nativeFrames_data() { gilscope::test::addInterpreterRows(all_); }
    void nativeFrames() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "native_calls.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        QTRY_VERIFY_WITH_TIMEOUT(h.select(target.pid()), 60000);
        h.bar()->nativeBox()->setChecked(true);
        if (interpreter.minor < 11) {
            QVERIFY(!h.window.recordAction()->isEnabled());
            const QString why = h.bar()->problemLabel()->text();
            QVERIFY2(why.contains("--native needs Python 3.11 or newer: Python 3." +
                                  QString::number(interpreter.minor)),
                     qPrintable(why));
            h.window.record();
            QCOMPARE(h.messages, QStringList{why});
            QVERIFY(!h.window.attaching());
            return;
        }
        recordUntilListed(h, {QStringLiteral("<native>"), QStringLiteral("key")});
    }

    // C stacks (--native-stacks, perf events): libc's qsort among the Python frames in the
    // views and the export, without stopping the target.
    void cStacks() {
        if (const QString why = gilscope::test::perfEventsRefused(); !why.isEmpty())
            QSKIP(qPrintable(why));
        Interpreter host;
        for (const Interpreter& i : all_)
            if (!i.inChroot) host = i;
        QVERIFY(host.minor > 0);
        TargetProcess target(host, "qsort_callback.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        QTRY_VERIFY_WITH_TIMEOUT(h.select(target.pid()), 60000);
        h.bar()->nativeStacksBox()->setChecked(true);
        QVERIFY(h.bar()->summary().contains(QStringLiteral("C stacks")));
        recordUntilListed(h, {QStringLiteral("qsort_r"), QStringLiteral("sort_forever")});
        // A C function clicked in the flame graph: the source view names its library.
        auto* panel = h.window.analysis();
        panel->tabs()->setCurrentIndex(1);
        auto* flame = panel->flameGraph();
        QTRY_VERIFY(flame->isVisible() && !flame->frameRect(QStringLiteral("qsort_r")).isEmpty());
        // C in the native blue-greys by library, Python in its module's colour.
        const QImage shot = flame->grab().toImage();
        auto fillAt = [&](const char* function) {
            const QRect r = flame->frameRect(QLatin1String(function));
            return shot.pixelColor(r.topLeft() + QPoint(1, 1));
        };
        const gilscope::Rgb libc = gilscope::colorOfLibrary("libc.so.6");
        QCOMPARE(fillAt("qsort_r"), QColor(libc.r, libc.g, libc.b));
        const gilscope::Rgb script = gilscope::moduleColor("/x/qsort_callback.py");
        QCOMPARE(fillAt("sort_forever"), QColor(script.r, script.g, script.b));
        QTest::mouseClick(flame, Qt::LeftButton, {},
                          flame->frameRect(QStringLiteral("qsort_r")).center());
        QTRY_VERIFY2(
            panel->sourceView()->status().contains(QStringLiteral("native code in libc.so")),
            qPrintable(panel->sourceView()->status()));
    }

    // Async-aware, running and all: the three tasks' names in the analysis views on 3.14+;
    // refused with the version on older ones.
    void asyncAware_data() {
        QTest::addColumn<Interpreter>("interpreter");
        QTest::addColumn<QString>("mode");
        for (const Interpreter& i : all_)
            for (const QString mode : {"running", "all"})
                if (i.minor >= 14 || mode == QLatin1String("running")) // one refusal is enough
                    QTest::newRow(qPrintable(i.label + " " + mode)) << i << mode;
    }
    void asyncAware() {
        QFETCH(Interpreter, interpreter);
        QFETCH(QString, mode);
        TargetProcess target(interpreter, "async_tasks.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        QTRY_VERIFY_WITH_TIMEOUT(h.select(target.pid()), 60000);
        h.chooseAsync(mode);
        if (interpreter.minor < 14) {
            QVERIFY(!h.window.recordAction()->isEnabled());
            const QString why = h.bar()->problemLabel()->text();
            QVERIFY2(why.contains("--async-aware needs Python 3.14 or newer: Python 3." +
                                  QString::number(interpreter.minor)),
                     qPrintable(why));
            QVERIFY(h.window.recordAction()->toolTip().contains(why));
            return;
        }
        recordUntilListed(h, {QStringLiteral("alpha"), QStringLiteral("beta"),
                              QStringLiteral("gamma"), QStringLiteral("beta_leaf")});
    }
};

QTEST_MAIN(TestRecordOptions)
#include "test_record_options.moc"
