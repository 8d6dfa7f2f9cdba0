#include "push_receiver.h"

#include "core/pprof/profile.pb.h"
#include "core/push/push.pb.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHttpServer>
#include <QHttpServerResponse>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTcpServer>

#include <zlib.h>

namespace gilscope::test {

namespace {

QByteArray gunzip(const QByteArray& in, bool* ok) {
    z_stream z{};
    *ok = false;
    if (inflateInit2(&z, 15 + 16) != Z_OK) return {};
    QByteArray out;
    char buffer[65536];
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.constData()));
    z.avail_in = static_cast<uInt>(in.size());
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof buffer;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buffer, static_cast<qsizetype>(sizeof buffer - z.avail_out));
    }
    inflateEnd(&z);
    *ok = rc == Z_STREAM_END;
    return out;
}

// Pyroscope's ValidateLabels.
QString checkLabels(const push::v1::RawProfileSeries& series) {
    static const QRegularExpression labelName("^[a-zA-Z_][a-zA-Z0-9_]*$");
    static const QRegularExpression metricName("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
    if (series.labels_size() == 0) return "no labels";
    if (series.labels_size() > 30) return QString("%1 labels").arg(series.labels_size());
    QSet<QString> names;
    QString metric, service;
    for (const auto& l : series.labels()) {
        const QString name = QString::fromStdString(l.name());
        if (l.name().size() > 1024 || l.value().size() > 2048) return "label too long: " + name;
        if (!labelName.match(name).hasMatch()) return "invalid label name " + name;
        if (names.contains(name)) return "duplicate label name " + name;
        names.insert(name);
        if (name == "__name__") metric = QString::fromStdString(l.value());
        if (name == "service_name") service = QString::fromStdString(l.value());
    }
    if (!metricName.match(metric).hasMatch()) return "invalid metric name '" + metric + "'";
    if (service.isEmpty()) return "service name is not provided";
    return {};
}

// Pyroscope's ValidateProfile and pprof's own rules, on one raw profile.
QString checkProfile(const perftools::profiles::Profile& p) {
    const int strings = p.string_table_size();
    if (strings == 0 || !p.string_table(0).empty()) return "string_table[0] is not \"\"";
    auto inRange = [strings](int64_t i) { return i >= 0 && i < strings; };
    if (p.sample_type_size() == 0) return "no sample type";
    for (const auto& t : p.sample_type()) {
        if (!inRange(t.type()) || !inRange(t.unit())) return "sample type out of the string table";
        if (p.string_table(static_cast<int>(t.type())).find('-') != std::string::npos)
            return "sample type contains -";
    }
    for (const auto& l : p.location())
        if (l.id() == 0) return "location id is 0";
    for (const auto& f : p.function()) {
        if (f.id() == 0) return "function id is 0";
        if (!inRange(f.name()) || !inRange(f.filename())) return "function name out of range";
    }
    for (const auto& s : p.sample()) {
        if (s.value_size() != p.sample_type_size()) return "sample values of another length";
        for (const auto& l : s.label())
            if (!inRange(l.key()) || !inRange(l.str())) return "label out of the string table";
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
    if (p.time_nanos() != 0 &&
        (p.time_nanos() < now - 3600'000'000'000 || p.time_nanos() > now + 600'000'000'000))
        return "time_nanos outside the server's window";
    return {};
}

} // namespace

PushReceiver::PushReceiver(Answer answer) : answer_(answer), context_(std::make_unique<QObject>()) {
    context_->moveToThread(&thread_);
    thread_.start();
}

PushReceiver::~PushReceiver() {
    stop();
    QMetaObject::invokeMethod(
        context_.get(), [this] { context_.reset(); }, Qt::BlockingQueuedConnection);
    thread_.quit();
    thread_.wait();
}

QString PushReceiver::url() const {
    return QString("http://127.0.0.1:%1").arg(port_);
}

bool PushReceiver::start(quint16 port) {
    bool ok = false;
    QMetaObject::invokeMethod(
        context_.get(),
        [this, port, &ok] {
            auto* server = new QHttpServer(context_.get());
            server->route(
                "/push.v1.PusherService/Push", QHttpServerRequest::Method::Post,
                [this](const QHttpServerRequest& request) {
                    int status = 200;
                    QByteArray answer = handle(request.body(), request.headers(), &status);
                    return QHttpServerResponse(
                        QByteArray(status == 200 ? "application/proto" : "application/json"),
                        answer, static_cast<QHttpServerResponse::StatusCode>(status));
                });
            server->route("/api/profiles/writeraw", QHttpServerRequest::Method::Post,
                          [this](const QHttpServerRequest& request) {
                              int status = 200;
                              QByteArray answer =
                                  handleParca(request.body(), request.headers(), &status);
                              return QHttpServerResponse(
                                  QByteArray("application/json"), answer,
                                  static_cast<QHttpServerResponse::StatusCode>(status));
                          });
            const quint16 bound = server->listen(QHostAddress::LocalHost, port);
            if (bound == 0) {
                delete server;
                return;
            }
            server_ = server;
            port_ = bound;
            ok = true;
        },
        Qt::BlockingQueuedConnection);
    return ok;
}

void PushReceiver::stop() {
    QMetaObject::invokeMethod(
        context_.get(),
        [this] {
            if (!server_) return;
            for (QTcpServer* listener : static_cast<QHttpServer*>(server_)->servers())
                listener->close();
            delete server_; // and its connections
            server_ = nullptr;
        },
        Qt::BlockingQueuedConnection);
}

QByteArray PushReceiver::handle(const QByteArray& body,
                                const QList<QPair<QByteArray, QByteArray>>& headers, int* status) {
    const QMutexLocker lock(&mutex_);
    ++requests_;
    auto refuse = [&](const QString& why, bool violation) {
        if (violation) violations_ << why;
        *status = 400;
        return QJsonDocument(QJsonObject{{"code", "invalid_argument"}, {"message", why}})
            .toJson(QJsonDocument::Compact);
    };
    if (answer_ == Answer::RefuseEverything)
        return refuse("test receiver refuses every profile (as a server refuses bad data)", false);
    push::v1::PushRequest request;
    if (!request.ParseFromArray(body.constData(), static_cast<int>(body.size())))
        return refuse("not a PushRequest", true);
    if (request.series_size() == 0) return refuse("no series", true);
    QList<ReceivedPush> pushes;
    for (const auto& series : request.series()) {
        if (const QString why = checkLabels(series); !why.isEmpty()) return refuse(why, true);
        for (const auto& sample : series.samples()) {
            ReceivedPush r;
            for (const auto& l : series.labels())
                r.labels[QString::fromStdString(l.name())] = QString::fromStdString(l.value());
            for (const auto& [name, value] : headers)
                r.headers[name.toLower()] = value;
            r.id = QString::fromStdString(sample.id());
            if (r.id.isEmpty()) return refuse("a sample without ID", true);
            r.rawProfile = QByteArray::fromStdString(sample.raw_profile());
            if (const QString why = readProfile(r); !why.isEmpty()) return refuse(why, true);
            pushes << r;
        }
    }
    accepted_ += pushes;
    *status = 200;
    return push::v1::PushResponse().SerializeAsString().c_str();
}

QString PushReceiver::readProfile(ReceivedPush& r) {
    bool ok = false;
    const QByteArray raw = gunzip(r.rawProfile, &ok);
    perftools::profiles::Profile profile;
    if (!ok || !profile.ParseFromArray(raw.constData(), static_cast<int>(raw.size())))
        return "raw_profile is not a gzip'd pprof";
    if (const QString why = checkProfile(profile); !why.isEmpty()) return why;
    r.timeNanos = profile.time_nanos();
    r.durationNanos = profile.duration_nanos();
    for (const auto& s : profile.sample())
        r.samples += s.value(0);
    return {};
}

QByteArray PushReceiver::handleParca(const QByteArray& body,
                                     const QList<QPair<QByteArray, QByteArray>>& headers,
                                     int* status) {
    const QMutexLocker lock(&mutex_);
    ++requests_;
    auto refuse = [&](const QString& why) {
        violations_ << why;
        *status = 400;
        return QJsonDocument(QJsonObject{{"code", 3}, {"message", why}})
            .toJson(QJsonDocument::Compact);
    };
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
    if (!doc.isObject()) return refuse("not JSON: " + error.errorString());
    const QJsonArray series = doc.object().value("series").toArray();
    if (series.isEmpty()) return refuse("no series");
    QList<ReceivedPush> pushes;
    for (const QJsonValue s : series) {
        QMap<QString, QString> labels;
        for (const QJsonValue l : s.toObject().value("labels").toObject().value("labels").toArray())
            labels[l.toObject().value("name").toString()] = l.toObject().value("value").toString();
        // Parca's normalizer requires __name__.
        if (labels.value("__name__").isEmpty()) return refuse("no __name__ label");
        for (const QJsonValue sample : s.toObject().value("samples").toArray()) {
            ReceivedPush r;
            r.labels = labels;
            for (const auto& [name, value] : headers)
                r.headers[name.toLower()] = value;
            // protojson takes the JSON name or the proto name.
            const QJsonObject o = sample.toObject();
            const QString text = o.contains("rawProfile") ? o.value("rawProfile").toString()
                                                          : o.value("raw_profile").toString();
            const auto decoded = QByteArray::fromBase64Encoding(
                text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
            if (!decoded) return refuse("rawProfile is not base64");
            r.rawProfile = *decoded;
            if (const QString why = readProfile(r); !why.isEmpty()) return refuse(why);
            pushes << r;
        }
    }
    accepted_ += pushes;
    *status = 200;
    return "{}";
}

QList<ReceivedPush> PushReceiver::accepted() const {
    const QMutexLocker lock(&mutex_);
    return accepted_;
}

int PushReceiver::requests() const {
    const QMutexLocker lock(&mutex_);
    return requests_;
}

QStringList PushReceiver::violations() const {
    const QMutexLocker lock(&mutex_);
    return violations_;
}

bool PushReceiver::waitFor(const std::function<bool()>& done, int timeoutMs) const {
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > timeoutMs) return false;
        QThread::msleep(20); // the receiver runs on its own thread: nothing to process here
    }
    return true;
}

} // namespace gilscope::test
