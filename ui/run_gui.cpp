#include "ui/run_gui.h"

#include "ui/main_window.h"

#include <QApplication>
#include <QFile>
#include <QSettings>

namespace gilscope::ui {

void openCommandLineFiles(MainWindow& window, const QStringList& arguments) {
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        if (arguments[i].startsWith(QLatin1Char('-'))) continue; // Qt's own (-style ...)
        window.openRecordingFile(arguments[i]);
        return;
    }
}

int runGui(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gilscope"));
    QApplication::setOrganizationName(QStringLiteral("gilscope"));
    QApplication::setApplicationVersion(QStringLiteral(GILSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("gilscope"));
    QSettings settings; // ~/.config/gilscope/gilscope.conf
    MainWindow window(&settings);
    window.show();
    // QApplication took its own options out of argv; file names keep their bytes.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QFile::decodeName(argv[i]);
    openCommandLineFiles(window, arguments);
    return QApplication::exec();
}

} // namespace gilscope::ui
