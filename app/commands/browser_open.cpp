#include "app/commands/browser_open.h"

#include "net/profile_server.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <cstdio>

namespace gilscope::cli {

namespace {

// The command that opens a URL: $GILSCOPE_BROWSER or $BROWSER (a command line; the URL
// is added as its last argument), else xdg-open.
QStringList browserCommand() {
    for (const char* name : {"GILSCOPE_BROWSER", "BROWSER"}) {
        const QString value = qEnvironmentVariable(name);
        if (!value.trimmed().isEmpty()) return QProcess::splitCommand(value);
    }
    return {QStringLiteral("xdg-open")};
}

} // namespace

int openInFirefoxProfiler(const QString& path, const QString& profiler,
                          const std::function<bool()>& interrupted) {
    QString address = profiler;
    if (address.isEmpty()) // the window's setting, so both hand files to the same place
        address = QSettings(QStringLiteral("gilscope"), QStringLiteral("gilscope"))
                      .value(QStringLiteral("export/profilerAddress"),
                             net::ProfileServer::kDefaultProfiler)
                      .toString();
    net::ProfileServer server;
    QString error;
    if (!server.start(path, QUrl(address), &error)) {
        std::fprintf(stderr, "gilscope: %s\n", qPrintable(error));
        return 1;
    }
    const QString url = server.profilerUrl().toString(QUrl::FullyEncoded);
    QStringList command = browserCommand();
    const QString program = command.takeFirst();
    if (!QProcess::startDetached(program, command << url)) {
        std::fprintf(stderr,
                     "gilscope: cannot start %s; open this address in a browser within 5 "
                     "minutes:\n%s\n",
                     qPrintable(program), qPrintable(url));
    } else {
        std::printf("Opening the Firefox Profiler (%s); waiting for it to fetch the profile...\n",
                    qPrintable(QUrl(address).host()));
    }
    std::fflush(stdout);
    QEventLoop loop;
    bool fetched = false;
    QObject::connect(&server, &net::ProfileServer::stopped, &loop, [&](bool wasFetched) {
        fetched = wasFetched;
        loop.quit();
    });
    QTimer poll;
    if (interrupted) {
        QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
            if (interrupted()) server.stop();
        });
        poll.start(100);
    }
    loop.exec();
    if (!fetched) {
        std::fprintf(stderr, "gilscope: the browser did not fetch the profile\n");
        return 1;
    }
    // The response may still be on its way: stay until the browser closes the connection
    // (a minute at most), or exiting would cut the file short.
    QEventLoop sending;
    QObject::connect(&server, &net::ProfileServer::delivered, &sending, &QEventLoop::quit);
    QTimer::singleShot(60000, &sending, &QEventLoop::quit);
    if (!server.wasDelivered()) sending.exec();
    std::printf("The Firefox Profiler has the profile.\n");
    return 0;
}

int openFileInBrowser(const QString& path) {
    const QString url =
        QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded);
    QStringList command = browserCommand();
    const QString program = command.takeFirst();
    if (!QProcess::startDetached(program, command << url)) {
        std::fprintf(stderr, "gilscope: cannot start %s; open %s in a browser\n",
                     qPrintable(program), qPrintable(url));
        return 1;
    }
    std::fprintf(stderr, "Opening %s in the browser (%s)\n", qPrintable(url), qPrintable(program));
    return 0;
}

} // namespace gilscope::cli
