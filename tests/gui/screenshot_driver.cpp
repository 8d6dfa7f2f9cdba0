// Not a test: opens the real window, selects PID, records it for SECONDS and saves a
// screenshot of the window to OUT.png (also leaves it on screen for `import`). Given a
// .bin file instead of a pid, it opens that recording.
//   xvfb-run -s "-screen 0 1400x900x24" gui_screenshot_driver PID|FILE.bin SECONDS OUT.png
#include "ui/main_window.h"
#include "ui/process_picker.h"

#include <QAction>
#include <QApplication>
#include <QScreen>
#include <QTest>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s PID SECONDS OUT.png\n", argv[0]);
        return 2;
    }
    const QString what = QString::fromLocal8Bit(argv[1]);
    const int pid = what.toInt();
    const int seconds = QString::fromLocal8Bit(argv[2]).toInt();
    const QString out = QString::fromLocal8Bit(argv[3]);
    gilscope::ui::MainWindow window;
    window.setGeometry(QApplication::primaryScreen()->availableGeometry());
    window.show();
    if (what.endsWith(QStringLiteral(".bin"))) {
        window.prompts().askOpenPath = [what] { return what; };
        window.openRecording();
        QTest::qWait(seconds * 1000);
        const bool saved = window.grab().save(out);
        std::printf("%s %s\n", saved ? "saved" : "could not save", qPrintable(out));
        QTest::qWait(3000);
        return saved ? 0 : 1;
    }
    for (int i = 0; i < 100 && !window.picker()->selectPid(pid); ++i) {
        window.picker()->refreshNow();
        QTest::qWait(200);
    }
    window.recordAction()->trigger();
    // The attach runs on a worker; sampling starts once it has opened the process.
    if (!QTest::qWaitFor([&] { return !window.attaching(); }, 20000) || !window.recording()) {
        std::fprintf(stderr, "could not start recording pid %d: %s\n", pid,
                     qPrintable(window.statusText()));
        return 1;
    }
    QTest::qWait(seconds * 1000);
    const bool saved = window.grab().save(out);
    std::printf("%s %s\n", saved ? "saved" : "could not save", qPrintable(out));
    QTest::qWait(3000); // time for an external `import -window root`
    window.stop();
    return saved ? 0 : 1;
}
