#pragma once

#include <QObject>
#include <QString>
#include <QUrl>

#include <memory>
#include <vector>

class QHttpServer;
class QTimer;

namespace gilscope::net {

// Hands one profile file to the Firefox Profiler, as samply does: serves it once from
// 127.0.0.1 on a random port under an unguessable path, with the CORS header the
// profiler's origin needs, and stops after the first fetch or after a timeout (5
// minutes). The browser opens profilerUrl(), the profiler's /from-url/ page.
class ProfileServer : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 5 * 60 * 1000;
    static inline const QString kDefaultProfiler = QStringLiteral("https://profiler.firefox.com");

    explicit ProfileServer(QObject* parent = nullptr);
    ~ProfileServer() override;

    // Starts serving path for profiler (e.g. https://profiler.firefox.com, or a team's
    // own instance). False, with *error, when the file cannot be read or no port opens.
    bool start(const QString& path, const QUrl& profiler, QString* error,
               int timeoutMs = kDefaultTimeoutMs);
    void stop();
    bool serving() const { return server_ != nullptr; }
    bool wasDelivered() const { return delivered_; }

    QUrl fileUrl() const { return fileUrl_; }         // http://127.0.0.1:PORT/TOKEN/NAME
    QUrl profilerUrl() const { return profilerUrl_; } // PROFILER/from-url/<encoded fileUrl>
    QByteArray allowedOrigin() const { return origin_; }

    // scheme://host[:port] of a URL, as browsers send it in Origin.
    static QByteArray originOf(const QUrl& url);

signals:
    void fetched();                // the file went out; the server no longer listens
    void stopped(bool wasFetched); // after the fetch, a timeout or stop()
    // After the fetch, once the browser has closed its connection: the whole file went
    // out. (A program about to exit waits for this, not for fetched().)
    void delivered();

private:
    void watchConnections(QHttpServer* server);

    std::unique_ptr<QHttpServer> server_;
    std::vector<std::unique_ptr<QHttpServer>> retired_; // closed, maybe still sending
    QTimer* timeout_;
    QString path_;
    QUrl fileUrl_, profilerUrl_;
    QByteArray origin_;
    bool fetched_ = false;
    bool delivered_ = false;
};

} // namespace gilscope::net
