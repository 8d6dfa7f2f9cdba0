// "Show in folder" after an export: the file manager is asked over D-Bus to select the
// file (org.freedesktop.FileManager1.ShowItems, with the file's percent-encoded URI);
// without a session bus, or when no file manager answers on it, the folder opens with
// QDesktopServices instead. A private dbus-daemon stands in for the desktop's session
// bus, and an object on it for the file manager (there is none offscreen); those cases
// are skipped where dbus-daemon is not installed.
#include "tests/support/ci_requirements.h"
#include "ui/show_in_folder.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using gilscope::ui::fileUriOf;
using gilscope::ui::showInFolder;

namespace {

// What a file manager exports on the bus, for the one call we make.
class FakeFileManager : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.FileManager1")
public:
    QStringList shown;
public slots:
    Q_SCRIPTABLE void ShowItems(const QStringList& uris, const QString& startupId) {
        Q_UNUSED(startupId);
        shown += uris;
    }
};

// A private bus: dbus-daemon --session on its own socket, gone with this object.
class PrivateBus {
public:
    bool start() {
        const QString daemon = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
        if (daemon.isEmpty()) return false;
        process_.start(daemon, {QStringLiteral("--session"), QStringLiteral("--nofork"),
                                QStringLiteral("--print-address=1"),
                                QStringLiteral("--address=unix:dir=") + dir_.path()});
        if (!process_.waitForStarted(10000)) return false;
        while (!process_.canReadLine())
            if (!process_.waitForReadyRead(30000)) return false;
        address_ = QString::fromUtf8(process_.readLine()).trimmed();
        return !address_.isEmpty();
    }
    QDBusConnection connect(const QString& name) {
        return QDBusConnection::connectToBus(address_, name);
    }
    ~PrivateBus() {
        process_.kill();
        process_.waitForFinished(10000);
    }

private:
    QTemporaryDir dir_;
    QProcess process_;
    QString address_;
};

} // namespace

class TestShowInFolder : public QObject {
    Q_OBJECT
private slots:
    void theUriIsTheAbsolutePercentEncodedPath() {
        QCOMPARE(fileUriOf(QStringLiteral("/tmp/a b/c#1%.json")),
                 QStringLiteral("file:///tmp/a%20b/c%231%25.json"));
        QCOMPARE(fileUriOf(QStringLiteral("/tmp/prøve.json")),
                 QStringLiteral("file:///tmp/pr%C3%B8ve.json"));
        QVERIFY(fileUriOf(QStringLiteral("rel.json")).startsWith(QStringLiteral("file:///")));
    }

    void withoutABusTheFolderOpens() {
        const QDBusConnection none = QDBusConnection::connectToBus(
            QStringLiteral("unix:path=/nonexistent/gilscope-test-bus"), QStringLiteral("none"));
        QVERIFY(!none.isConnected());
        QList<QUrl> opened;
        int viaFileManager = -1;
        QObject context;
        showInFolder(
            QStringLiteral("/tmp/exports/run.json"), &context,
            [&](const QUrl& url) {
                opened.append(url);
                return true;
            },
            none, [&](bool fm) { viaFileManager = fm; });
        QCOMPARE(opened, QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/exports"))});
        QCOMPARE(viaFileManager, 0);
    }

    void aFileManagerOnTheBusSelectsTheFile() {
        PrivateBus bus;
        GILSCOPE_REQUIRE(bus.start(), "dbus-daemon is not installed or did not start");
        QDBusConnection fmConnection = bus.connect(QStringLiteral("fm"));
        FakeFileManager fm;
        QVERIFY(fmConnection.registerObject(QStringLiteral("/org/freedesktop/FileManager1"), &fm,
                                            QDBusConnection::ExportScriptableSlots));
        QVERIFY(fmConnection.registerService(QStringLiteral("org.freedesktop.FileManager1")));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("my export.json"));
        QList<QUrl> opened;
        int viaFileManager = -1;
        QObject context;
        showInFolder(
            path, &context,
            [&](const QUrl& url) {
                opened.append(url);
                return true;
            },
            bus.connect(QStringLiteral("app")), [&](bool f) { viaFileManager = f; });
        QTRY_COMPARE_WITH_TIMEOUT(viaFileManager, 1, 30000);
        QCOMPARE(fm.shown, QStringList{fileUriOf(path)});
        QVERIFY(opened.isEmpty());
    }

    void withNoFileManagerAnsweringTheFolderOpens() {
        PrivateBus bus;
        GILSCOPE_REQUIRE(bus.start(), "dbus-daemon is not installed or did not start");
        QList<QUrl> opened;
        int viaFileManager = -1;
        QObject context;
        showInFolder(
            QStringLiteral("/tmp/exports/run.json"), &context,
            [&](const QUrl& url) {
                opened.append(url);
                return true;
            },
            bus.connect(QStringLiteral("lonely")), [&](bool f) { viaFileManager = f; });
        QTRY_COMPARE_WITH_TIMEOUT(viaFileManager, 0, 30000);
        QCOMPARE(opened, QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/exports"))});
    }
};

QTEST_MAIN(TestShowInFolder)
#include "test_show_in_folder.moc"
