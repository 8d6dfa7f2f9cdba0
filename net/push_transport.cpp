#include "net/push_transport.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace gilscope::net {

namespace {

class QtPushTransport final : public push::PushTransport {
public:
    explicit QtPushTransport(PushEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

    push::PostResult post(const std::string& body) override {
        QNetworkRequest request(endpoint_.url);
        if (endpoint_.parca) {
            request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        } else {
            // Connect's unary call over HTTP: the message as binary protobuf.
            request.setHeader(QNetworkRequest::ContentTypeHeader, "application/proto");
            request.setRawHeader("Connect-Protocol-Version", "1");
        }
        request.setRawHeader("User-Agent", "gilscope");
        for (const auto& [name, value] : endpoint_.headers)
            request.setRawHeader(name, value);
        if (!endpoint_.user.isEmpty())
            request.setRawHeader("Authorization",
                                 "Basic " + (endpoint_.user + ':' + endpoint_.password).toBase64());
        request.setTransferTimeout(endpoint_.timeoutMs);
        QNetworkReply* reply =
            manager_.post(request, QByteArray(body.data(), static_cast<qsizetype>(body.size())));
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        if (!reply->isFinished()) loop.exec();
        push::PostResult result;
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray answer = reply->readAll();
        result.body.assign(answer.constData(), static_cast<size_t>(answer.size()));
        if (result.status == 0) result.error = reply->errorString().toStdString();
        delete reply;
        return result;
    }

private:
    PushEndpoint endpoint_;
    QNetworkAccessManager manager_;
};

} // namespace

namespace {

QUrl under(const QUrl& base, const QString& endpoint) {
    QUrl url = base;
    QString path = url.path();
    while (path.endsWith('/'))
        path.chop(1);
    url.setPath(path + endpoint);
    return url;
}

} // namespace

QUrl pyroscopePushUrl(const QUrl& base) {
    return under(base, "/push.v1.PusherService/Push");
}

QUrl parcaWriteRawUrl(const QUrl& base) {
    return under(base, "/api/profiles/writeraw");
}

std::unique_ptr<push::PushTransport> makePushTransport(const PushEndpoint& endpoint) {
    return std::make_unique<QtPushTransport>(endpoint);
}

} // namespace gilscope::net
