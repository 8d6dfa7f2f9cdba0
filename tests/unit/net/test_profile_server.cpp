// ProfileServer hands a file to the Firefox Profiler once: the right bytes under an
// unguessable path with the profiler's CORS header, 404 for any other path, and nothing
// listening afterwards (after the fetch, or after the timeout).
#include "net/profile_server.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using gilscope::net::ProfileServer;

namespace {

struct Reply {
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    int status = 0;
    QByteArray body, allowOrigin;
};

Reply get(QNetworkAccessManager& nam, const QUrl& url) {
    QNetworkRequest request(url);
    request.setRawHeader("Origin", "https://profiler.example.org");
    QNetworkReply* reply = nam.get(request);
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !done.wait(30000)) return {QNetworkReply::TimeoutError, 0, {}, {}};
    Reply r{reply->error(), reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
            reply->readAll(), reply->rawHeader("Access-Control-Allow-Origin")};
    reply->deleteLater();
    return r;
}

QString writeProfile(const QTemporaryDir& dir, const QByteArray& bytes) {
    const QString path = dir.filePath(QStringLiteral("app_42_20260101-120000.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(bytes);
    return path;
}

} // namespace

class TestProfileServer : public QObject {
    Q_OBJECT
private slots:
    void servesOnceWithCorsThenCloses() {
        QTemporaryDir dir;
        QByteArray bytes = "{\"meta\":{\"version\":29},\"threads\":[]}";
        bytes += QByteArray(300000, ' '); // more than one socket write
        const QString path = writeProfile(dir, bytes);
        ProfileServer server;
        QSignalSpy fetched(&server, &ProfileServer::fetched);
        QSignalSpy stopped(&server, &ProfileServer::stopped);
        QString error;
        QVERIFY2(server.start(path, QUrl(QStringLiteral("https://profiler.example.org/")), &error),
                 qPrintable(error));
        const QUrl url = server.fileUrl();
        QCOMPARE(url.host(), QStringLiteral("127.0.0.1"));
        QVERIFY(url.port() > 0);
        static const QRegularExpression shape(
            QStringLiteral("^/[0-9a-f]{32}/app_42_20260101-120000\\.json$"));
        QVERIFY2(shape.match(url.path()).hasMatch(), qPrintable(url.path()));
        QCOMPARE(server.profilerUrl().toString(QUrl::FullyEncoded),
                 QStringLiteral("https://profiler.example.org/from-url/") +
                     QString::fromLatin1(QUrl::toPercentEncoding(url.toString())));

        QNetworkAccessManager nam;
        QUrl wrong = url;
        wrong.setPath(
            QStringLiteral("/00000000000000000000000000000000/app_42_20260101-120000.json"));
        const Reply denied = get(nam, wrong);
        QCOMPARE(denied.status, 404);
        QVERIFY(server.serving());
        QCOMPARE(fetched.count(), 0);

        const Reply ok = get(nam, url);
        QCOMPARE(ok.error, QNetworkReply::NoError);
        QCOMPARE(ok.status, 200);
        QCOMPARE(ok.body, bytes);
        QCOMPARE(ok.allowOrigin, QByteArray("https://profiler.example.org"));
        QCOMPARE(fetched.count(), 1);
        QTRY_COMPARE(stopped.count(), 1);
        QCOMPARE(stopped.at(0).at(0).toBool(), true);
        QVERIFY(!server.serving());

        // Nothing listens any more.
        const Reply after = get(nam, url);
        QCOMPARE(after.error, QNetworkReply::ConnectionRefusedError);
    }

    void stopsAfterTheTimeoutUnfetched() {
        QTemporaryDir dir;
        const QString path = writeProfile(dir, "{}");
        ProfileServer server;
        QSignalSpy stopped(&server, &ProfileServer::stopped);
        QString error;
        QVERIFY(server.start(path, QUrl(ProfileServer::kDefaultProfiler), &error, 100));
        QCOMPARE(server.allowedOrigin(), QByteArray("https://profiler.firefox.com"));
        QVERIFY(server.profilerUrl().toString().startsWith(
            QStringLiteral("https://profiler.firefox.com/from-url/http%3A%2F%2F127.0.0.1%3A")));
        QVERIFY(stopped.wait(30000));
        QCOMPARE(stopped.at(0).at(0).toBool(), false);
        QNetworkAccessManager nam;
        QCOMPARE(get(nam, server.fileUrl()).error, QNetworkReply::ConnectionRefusedError);
    }

    void refusesWhatItCannotServe() {
        ProfileServer server;
        QString error;
        QVERIFY(!server.start(QStringLiteral("/nonexistent/profile.json"),
                              QUrl(ProfileServer::kDefaultProfiler), &error));
        QVERIFY(error.contains(QStringLiteral("/nonexistent/profile.json")));
        QTemporaryDir dir;
        QVERIFY(!server.start(writeProfile(dir, "{}"), QUrl(QStringLiteral("ftp://x")), &error));
        QVERIFY(!server.serving());
    }

    void originOfAUrl() {
        QCOMPARE(
            ProfileServer::originOf(QUrl(QStringLiteral("https://p.example.com:8443/a/b?x#y"))),
            QByteArray("https://p.example.com:8443"));
    }
};

QTEST_GUILESS_MAIN(TestProfileServer)
#include "test_profile_server.moc"
