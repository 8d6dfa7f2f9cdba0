#include "net/profile_server.h"

#include <QFile>
#include <QFileInfo>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <memory>
#include <utility>

namespace gilscope::net {

namespace {

// 128 random bits from the system's generator: a path nobody else can guess.
QString unguessableToken() {
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    return QString::fromLatin1(
        QByteArray(reinterpret_cast<const char*>(words), sizeof words).toHex());
}

} // namespace

ProfileServer::ProfileServer(QObject* parent) : QObject(parent), timeout_(new QTimer(this)) {
    timeout_->setSingleShot(true);
    connect(timeout_, &QTimer::timeout, this, &ProfileServer::stop);
}

ProfileServer::~ProfileServer() = default;

QByteArray ProfileServer::originOf(const QUrl& url) {
    return url
        .adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment |
                  QUrl::RemoveUserInfo | QUrl::StripTrailingSlash)
        .toString()
        .toUtf8();
}

bool ProfileServer::start(const QString& path, const QUrl& profiler, QString* error,
                          int timeoutMs) {
    stop();
    if (!profiler.isValid() || (profiler.scheme() != QLatin1String("https") &&
                                profiler.scheme() != QLatin1String("http"))) {
        *error =
            tr("The Firefox Profiler address “%1” is not an http(s) URL.").arg(profiler.toString());
        return false;
    }
    QFile probe(path);
    if (!probe.open(QIODevice::ReadOnly)) {
        *error = tr("Cannot read %1: %2").arg(path, probe.errorString());
        return false;
    }
    path_ = path;
    origin_ = originOf(profiler);
    fetched_ = false;
    delivered_ = false;
    server_ = std::make_unique<QHttpServer>();
    // The file's name stays in the URL so the profiler shows it; the token guards it.
    const QString name = QString::fromLatin1(QUrl::toPercentEncoding(QFileInfo(path).fileName()));
    const QString route = QLatin1Char('/') + unguessableToken() + QLatin1Char('/') + name;
    QHttpServer* server = server_.get();
    server_->route(
        route, [this, server](const QHttpServerRequest&, QHttpServerResponder&& responder) {
            auto* file = new QFile(path_);
            // Once only, also over a connection the client kept open.
            if (fetched_ || server != server_.get() || !file->open(QIODevice::ReadOnly)) {
                delete file;
                responder.write(QHttpServerResponder::StatusCode::NotFound);
                return;
            }
            // The responder streams the file and owns it from here.
            responder.write(file,
                            {{"Content-Type", "application/json"},
                             {"Access-Control-Allow-Origin", origin_},
                             {"Cache-Control", "no-store"},
                             {"Connection", "close"}},
                            QHttpServerResponder::StatusCode::Ok);
            // Once: no new connection is accepted; this response still goes out.
            for (QTcpServer* listener : server->servers())
                listener->close();
            fetched_ = true;
            watchConnections(server);
            emit fetched();
            QTimer::singleShot(0, this, &ProfileServer::stop);
        });
    const quint16 port = server_->listen(QHostAddress::LocalHost, 0);
    if (port == 0) {
        server_.reset();
        *error = tr("Cannot listen on 127.0.0.1 to hand the profile to the browser.");
        return false;
    }
    fileUrl_ = QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(route));
    QString base = profiler.toString(QUrl::FullyEncoded);
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    profilerUrl_ = QUrl(base + QStringLiteral("/from-url/") +
                        QString::fromLatin1(QUrl::toPercentEncoding(fileUrl_.toString())));
    timeout_->start(timeoutMs);
    return true;
}

void ProfileServer::watchConnections(QHttpServer* server) {
    // The connections are the listeners' children (QTcpServer::nextPendingConnection).
    const QList<QTcpSocket*> sockets = server->findChildren<QTcpSocket*>();
    auto open = std::make_shared<int>(0);
    for (QTcpSocket* socket : sockets) {
        if (socket->state() != QAbstractSocket::ConnectedState) continue;
        ++*open;
        auto closed = std::make_shared<bool>(false);
        auto onClosed = [this, open, closed] {
            if (std::exchange(*closed, true)) return;
            if (--*open == 0) {
                delivered_ = true;
                emit delivered();
            }
        };
        connect(socket, &QAbstractSocket::disconnected, this, onClosed);
        connect(socket, &QObject::destroyed, this, onClosed);
    }
    if (*open == 0) {
        delivered_ = true;
        QTimer::singleShot(0, this, &ProfileServer::delivered);
    }
}

void ProfileServer::stop() {
    timeout_->stop();
    if (!server_) return;
    for (QTcpServer* listener : server_->servers())
        listener->close();
    // Nothing listens any more, but a response may still be streaming through the
    // server's socket: keep its objects until this ProfileServer goes.
    retired_.push_back(std::move(server_));
    emit stopped(fetched_);
}

} // namespace gilscope::net
