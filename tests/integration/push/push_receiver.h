#pragma once

// A loopback stand-in for Grafana Pyroscope's push endpoint
// (POST /push.v1.PusherService/Push, Connect, application/proto) and Parca's
// (POST /api/profiles/writeraw, grpc-gateway's JSON of WriteRawRequest), on its own thread so
// tests can block while gilscope talks to it. It decodes each PushRequest with the
// schema gilscope vendors and checks it the way Pyroscope's distributor does
// (pkg/validation: labels, then each pprof), written here from those rules, not with
// gilscope's own checks.

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QMutex>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QThread>

#include <functional>
#include <memory>

namespace gilscope::test {

struct ReceivedPush {
    QMap<QString, QString> labels;
    QString id;
    QByteArray rawProfile; // gzip'd pprof
    qint64 timeNanos = 0, durationNanos = 0;
    qint64 samples = 0; // the sum of the samples/count values
    QMap<QByteArray, QByteArray> headers;
};

class PushReceiver {
public:
    enum class Answer { Accept, RefuseEverything };
    explicit PushReceiver(Answer answer = Answer::Accept);
    ~PushReceiver();

    // Listens on 127.0.0.1:port (0: any free port); false when it cannot.
    bool start(quint16 port = 0);
    // Stops listening: connections are refused until start() again.
    void stop();
    quint16 port() const { return port_; }
    QString url() const;

    QList<ReceivedPush> accepted() const;
    int requests() const;           // every POST seen, accepted or not
    QStringList violations() const; // pushes that broke Pyroscope's rules, and why
    // Blocks until `done` holds (checked as requests arrive) or timeoutMs pass.
    bool waitFor(const std::function<bool()>& done, int timeoutMs) const;

private:
    QByteArray handle(const QByteArray& body, const QList<QPair<QByteArray, QByteArray>>& headers,
                      int* status);
    // Parca's WriteRaw: a label set with __name__, each raw profile a gzip'd pprof.
    QByteArray handleParca(const QByteArray& body,
                           const QList<QPair<QByteArray, QByteArray>>& headers, int* status);
    // Decodes one raw profile into `r` (samples, times); the reason when it is not valid.
    static QString readProfile(ReceivedPush& r);

    const Answer answer_;
    QThread thread_;
    std::unique_ptr<QObject> context_; // lives on thread_: the server is made there
    QObject* server_ = nullptr;        // the QHttpServer, on thread_
    quint16 port_ = 0;
    mutable QMutex mutex_;
    QList<ReceivedPush> accepted_;
    QStringList violations_;
    int requests_ = 0;
};

} // namespace gilscope::test
