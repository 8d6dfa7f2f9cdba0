// Not a test: the screenshots issue 11 asks to look at, at whatever screen size and
// QT_SCALE_FACTOR it runs under. Saves into OUTDIR: picker.png (the process list with a
// selected process that cannot be attached, whose row is staged: gilscope runs as root
// here, so no real process is refused), recording.png (a real target recorded for a few
// seconds, with the rate chart), launch.png (the Launch dialog), export.png (the choices
// after an export).
//   xvfb-run -s "-screen 0 1024x700x24" gui_screenshot_tour OUTDIR TARGET.py
#include "core/remote/process_scanner.h"
#include "ui/launch_dialog.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/process_table_model.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QMessageBox>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cstdio>

namespace {

bool save(QWidget* w, const QString& path) {
    const bool ok = w->grab().save(path);
    std::printf("%s %s (%dx%d logical)\n", ok ? "saved" : "could not save", qPrintable(path),
                w->width(), w->height());
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUTDIR TARGET.py\n", argv[0]);
        return 2;
    }
    const QDir out(QString::fromLocal8Bit(argv[1]));
    const QString script = QString::fromLocal8Bit(argv[2]);
    QProcess target;
    target.start(QStringLiteral("python3"), {script});
    if (!target.waitForReadyRead(20000)) return 1; // its READY line

    gilscope::ui::MainWindow window;
    window.show();
    (void)QTest::qWaitForWindowExposed(&window);

    // 1. The picker: real processes plus one staged row that cannot be attached.
    for (int i = 0; i < 50 && !window.picker()->selectPid(int(target.processId())); ++i) {
        window.picker()->refreshNow();
        QTest::qWait(200);
    }
    window.picker()->setAutoRefresh(false);
    auto processes = gilscope::scanPythonProcesses();
    gilscope::PythonProcessInfo refused;
    refused.pid = 4242;
    refused.user = "postgres";
    refused.version = "3.12.3";
    refused.executable = "/usr/bin/python3.12";
    refused.commandLine = "/usr/bin/python3.12 /srv/etl/worker.py --queue nightly --batch 500";
    refused.reason = "process 4242 belongs to user postgres; reading another user's memory needs "
                     "CAP_SYS_PTRACE (run gilscope as root, or sudo setcap cap_sys_ptrace+ep "
                     "gilscope), and kernel.yama.ptrace_scope is 1: only descendants may be read";
    processes.push_back(refused);
    window.picker()->model()->setProcesses(processes);
    window.picker()->selectPid(refused.pid);
    QTest::qWait(300);
    save(&window, out.filePath(QStringLiteral("picker.png")));

    // 2. A recording with the rate chart.
    window.picker()->setAutoRefresh(true);
    window.picker()->selectPid(int(target.processId()));
    window.recordAction()->trigger();
    (void)QTest::qWaitFor([&] { return window.recording(); }, 20000);
    QTest::qWait(4000);
    save(&window, out.filePath(QStringLiteral("recording.png")));
    if (qEnvironmentVariableIsSet("TOUR_SIZES"))
        for (QWidget* w : window.findChildren<QWidget*>())
            if (w->isVisible() && w->minimumSizeHint().height() > 60)
                std::printf("%s %s min %d\n", w->metaObject()->className(),
                            qPrintable(w->objectName()), w->minimumSizeHint().height());
    window.stop();

    // 3. The Launch dialog, filled in.
    {
        gilscope::ui::LaunchDialog dialog(&window);
        gilscope::ui::LaunchRequest r;
        r.interpreter = dialog.interpreterBox()->itemData(0).toString();
        r.target = script;
        r.arguments = {QStringLiteral("--workers"), QStringLiteral("4")};
        r.workDir = QDir::tempPath();
        r.environment = {QStringLiteral("PYTHONUNBUFFERED=1"), QStringLiteral("APP_ENV=staging")};
        dialog.setRequest(r);
        dialog.show();
        (void)QTest::qWaitForWindowExposed(&dialog);
        QTest::qWait(300);
        save(&dialog, out.filePath(QStringLiteral("launch.png")));
    }

    // 4. The choices after an export (the real dialog, closed once grabbed).
    QTimer::singleShot(800, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            save(box, out.filePath(QStringLiteral("export.png")));
            box->reject();
        }
    });
    gilscope::ui::askExportChoiceBox(
        &window,
        QDir::home().filePath(QStringLiteral("profiles/gil_contention_4242_20261130-214501.json")));

    target.kill();
    target.waitForFinished();
    return 0;
}
