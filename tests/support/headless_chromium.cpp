#include "tests/support/headless_chromium.h"

#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QUrl>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gilscope::test {

namespace {

// A loopback port that was free a moment ago and that nobody listens on now.
int deadPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 9; // discard: closed on any sane machine
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) ::close(fd);
    return port;
}

} // namespace

QString chromiumBinary() {
    const QString env = qEnvironmentVariable("GILSCOPE_CHROMIUM");
    for (const QString& c : {env, QStringLiteral("/usr/bin/chromium")})
        if (!c.isEmpty() && QFileInfo(c).isExecutable()) return c;
    return {};
}

RenderedPage renderPage(const QString& path, const QString& fragment, int timeoutMs) {
    RenderedPage page;
    QTemporaryDir profile; // a fresh profile: no state shared between runs
    QUrl url = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath());
    if (!fragment.isEmpty()) url.setFragment(fragment);
    const QStringList args{"--headless",
                           "--disable-gpu",
                           "--no-sandbox",
                           "--no-first-run",
                           "--no-default-browser-check",
                           "--disable-background-networking",
                           "--disable-component-update",
                           "--disable-sync",
                           "--user-data-dir=" + profile.path(),
                           "--proxy-server=http://127.0.0.1:" + QString::number(deadPort()),
                           "--proxy-bypass-list=<-loopback>",
                           "--dump-dom",
                           url.toString(QUrl::FullyEncoded)};
    const RunResult r = runProgram(chromiumBinary(), args, {}, timeoutMs);
    page.wallSec = r.wallSec;
    page.dom = r.out;
    page.ok = r.exitCode == 0 && r.out.contains(QStringLiteral("</html>"));
    if (!page.ok) page.error = describe(r);
    return page;
}

QStringList webAddressesIn(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {QStringLiteral("(cannot read ") + path + ")"};
    const QString text = QString::fromUtf8(f.readAll());
    static const QRegularExpression web(QStringLiteral("https?://[^\\s\"'<>)]*"),
                                        QRegularExpression::CaseInsensitiveOption);
    QStringList found;
    for (auto it = web.globalMatch(text); it.hasNext();) {
        const QString address = it.next().captured();
        if (!address.startsWith(QStringLiteral("http://www.w3.org/"))) found << address;
    }
    return found;
}

QString statusAttribute(const QString& dom, const QString& name) {
    const QRegularExpression re("<p id=\"status\"[^>]*\\s" + QRegularExpression::escape(name) +
                                "=\"([^\"]*)\"");
    return re.match(dom).captured(1);
}

} // namespace gilscope::test
