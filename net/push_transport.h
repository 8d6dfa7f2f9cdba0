#pragma once

// The HTTP side of the continuous push (core/push): a request body POSTed to the
// server's push endpoint with Qt Network (http and https), the Connect protocol's
// headers, the user's extra headers and basic auth.

#include "core/push/pusher.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QUrl>

#include <memory>

namespace gilscope::net {

struct PushEndpoint {
    QUrl url;                                     // .../push.v1.PusherService/Push
    QList<QPair<QByteArray, QByteArray>> headers; // --push-header
    QByteArray user, password;                    // basic auth when user is not empty
    int timeoutMs = 10'000;
    bool parca = false; // JSON to grpc-gateway, not Connect's protobuf
};

// Pyroscope's push endpoint under a server's base URL.
QUrl pyroscopePushUrl(const QUrl& base);

// Parca's WriteRaw under a server's base URL (grpc-gateway: /api/profiles/writeraw).
QUrl parcaWriteRawUrl(const QUrl& base);

// A transport for one pusher thread: made on it, used on it (Qt's network objects belong
// to the thread that makes them).
std::unique_ptr<push::PushTransport> makePushTransport(const PushEndpoint& endpoint);

} // namespace gilscope::net
