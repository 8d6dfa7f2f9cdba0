#include "app/commands/push_options.h"

#include "app/commands/cli_arguments.h"

#include <QUrl>

#include <cmath>
#include <cstdlib>

namespace gilscope::cli {

namespace {

Error bad(const std::string& what) {
    return makeError(ErrorKind::BadArguments, what);
}

} // namespace

QList<QCommandLineOption> pushOptionTable() {
    return {
        {"push",
         "Push each interval's profile to the Grafana Pyroscope server at URL "
         "(URL/push.v1.PusherService/Push); with -o or a format flag, also write that file.",
         "URL"},
        {"push-interval", "With --push: how often, e.g. 10s (default), 500ms, 1m.", "DURATION",
         "10s"},
        {"label", "With --push: add KEY=VALUE to the series' labels (repeatable).", "KEY=VALUE"},
        {"service-name",
         "With --push: the service_name label (default: the script or module name).", "NAME"},
        {"push-header",
         "With --push: add an HTTP header, e.g. 'X-Scope-OrgID: tenant' (repeatable).", "HEADER"},
        {"push-user",
         "With --push: basic auth user; the password is read from $GILSCOPE_PUSH_PASSWORD.",
         "USER"},
        {"push-queue",
         "With --push: where profiles wait while the server cannot take them (default "
         "~/.local/state/gilscope/push-queue).",
         "DIR"},
        {"push-queue-size",
         "With --push: the queue's bound in MiB (default 64); the oldest are dropped past it.",
         "MIB", "64"},
        {"push-format",
         "With --push: pyroscope (default) or parca (Parca's URL/api/profiles/writeraw).", "FORMAT",
         "pyroscope"},
    };
}

Result<uint64_t> parseIntervalMs(const std::string& text) {
    double scale = 1000; // plain number: seconds
    std::string number = text;
    for (const auto& [suffix, ms] : {std::pair{"ms", 1.0}, std::pair{"s", 1000.0},
                                     std::pair{"m", 60'000.0}, std::pair{"h", 3'600'000.0}})
        if (text.size() > std::string(suffix).size() && text.ends_with(suffix)) {
            number = text.substr(0, text.size() - std::string(suffix).size());
            scale = ms;
            break;
        }
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value) ||
        value * scale < 100 || value * scale > 3'600'000)
        return bad("argument --push-interval: expected a duration from 100ms to 1h (10s, 500ms, "
                   "1m), got '" +
                   text + "'");
    return static_cast<uint64_t>(value * scale);
}

Result<PushOptions> readPushOptions(const QCommandLineParser& parser) {
    PushOptions o;
    const bool push = parser.isSet("push");
    for (const char* name : {"push-interval", "label", "service-name", "push-header", "push-user",
                             "push-queue", "push-queue-size", "push-format"})
        if (parser.isSet(name) && !push)
            return bad(std::string("--") + name + " is only valid with --push");
    if (!push) return o;

    const QUrl url(parser.value("push"), QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != "http" && url.scheme() != "https") ||
        url.host().isEmpty())
        return bad("argument --push: expected the server's http:// or https:// URL, got '" +
                   parser.value("push").toStdString() + "'");
    o.url = url.toString().toStdString();
    auto interval = parseIntervalMs(parser.value("push-interval").toStdString());
    if (!interval) return interval.error();
    o.intervalMs = *interval;
    for (const QString& text : parser.values("label")) {
        auto label = push::parseLabelArgument(argumentBytes(text));
        if (!label) return label.error();
        o.labels.push_back(std::move(*label));
    }
    if (parser.isSet("service-name")) {
        o.serviceName = argumentBytes(parser.value("service-name"));
        if (o.serviceName.empty()) return bad("argument --service-name: must not be empty");
    }
    for (const QString& text : parser.values("push-header")) {
        const qsizetype colon = text.indexOf(':');
        const QString name = text.left(colon).trimmed();
        if (colon <= 0 || name.isEmpty() || name.contains(' '))
            return bad("argument --push-header: expected 'Name: value', got '" +
                       text.toStdString() + "'");
        o.headers.emplace_back(name.toStdString(), text.mid(colon + 1).trimmed().toStdString());
    }
    if (parser.isSet("push-user")) {
        o.user = parser.value("push-user").toStdString();
        if (const char* password = std::getenv(kPushPasswordVariable))
            o.password = password;
        else
            return bad(std::string("--push-user needs the password in $") + kPushPasswordVariable +
                       " (never on the command line)");
    }
    o.queueDir = argumentBytes(parser.value("push-queue"));
    bool ok = false;
    const double mib = parser.value("push-queue-size").toDouble(&ok);
    if (!ok || !(mib >= 1) || mib > 1 << 20)
        return bad("argument --push-queue-size: expected MiB from 1, got '" +
                   parser.value("push-queue-size").toStdString() + "'");
    o.queueBytes = static_cast<uint64_t>(mib * 1024 * 1024);
    const QString format = parser.value("push-format");
    if (format != "pyroscope" && format != "parca")
        return bad("argument --push-format: invalid choice: '" + format.toStdString() +
                   "' (choose from 'pyroscope', 'parca')");
    o.parca = format == "parca";
    return o;
}

} // namespace gilscope::cli
