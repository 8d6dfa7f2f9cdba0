#pragma once

// --push and its companions (attach/run): continuous push of each interval's pprof to a
// Grafana Pyroscope server. The options live in the record options' one table.

#include "core/common/error.h"
#include "core/push/push_labels.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gilscope::cli {

// The environment variable --push-user's password comes from (never the command line,
// where `ps` shows it to everyone).
inline constexpr char kPushPasswordVariable[] = "GILSCOPE_PUSH_PASSWORD";

struct PushOptions {
    std::string url; // empty: no push
    uint64_t intervalMs = 10'000;
    std::vector<push::PushLabel> labels; // --label, in order
    std::string serviceName;             // empty: from the target's command line
    std::vector<std::pair<std::string, std::string>> headers;
    std::string user, password;
    std::string queueDir; // empty: the default under ~/.local/state
    uint64_t queueBytes = 64ull << 20;
    bool parca = false; // --push-format parca

    bool enabled() const { return !url.empty(); }
};

// The rows of the record options' table, in --help order.
QList<QCommandLineOption> pushOptionTable();
// Reads and checks them (label names, the URL, sizes); the password from the environment.
Result<PushOptions> readPushOptions(const QCommandLineParser& parser);

// "10s", "500ms", "2m", "1.5" (seconds).
Result<uint64_t> parseIntervalMs(const std::string& text);

} // namespace gilscope::cli
