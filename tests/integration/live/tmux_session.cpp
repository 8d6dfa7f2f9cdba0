#include "tmux_session.h"

#include "tests/support/run_gilscope.h"

#include <QElapsedTimer>
#include <QStandardPaths>
#include <QThread>

#include <unistd.h>

namespace gilscope::test {

bool haveTmux() {
    return !QStandardPaths::findExecutable("tmux").isEmpty();
}

QStringList TmuxSession::tmux(const QStringList& args) const {
    return QStringList{"-L", socket_, "-f", "/dev/null"} + args;
}

TmuxSession::TmuxSession(const QString& command, int width, int height) {
    static int serial = 0;
    socket_ = QString("gilscope-test-%1-%2").arg(::getpid()).arg(++serial);
    const RunResult r = runProgram("tmux", tmux({"new-session", "-d", "-x", QString::number(width),
                                                 "-y", QString::number(height), command}));
    started_ = r.exitCode == 0;
}

TmuxSession::~TmuxSession() {
    runProgram("tmux", tmux({"kill-server"}));
}

QString TmuxSession::screen() const {
    return runProgram("tmux", tmux({"capture-pane", "-p", "-t", "0"})).out;
}

void TmuxSession::sendKeys(const QString& keys) const {
    runProgram("tmux", tmux({"send-keys", "-t", "0", keys}));
}

bool TmuxSession::resize(int width, int height) const {
    return runProgram("tmux", tmux({"resize-window", "-t", "0", "-x", QString::number(width), "-y",
                                    QString::number(height)}))
               .exitCode == 0;
}

bool TmuxSession::waitForScreen(const std::function<bool(const QString&)>& done, QString* last,
                                int timeoutMs) const {
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        *last = screen();
        if (done(*last)) return true;
        if (timer.elapsed() > timeoutMs) return false;
        QThread::msleep(50); // a poll of the screen, not a wait for its content
    }
}

} // namespace gilscope::test
