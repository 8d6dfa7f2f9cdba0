#pragma once

// A program in a terminal of its own for the tests: a detached tmux session on a private
// server, whose screen the test reads (capture-pane) and types into (send-keys).

#include <QString>
#include <QStringList>

#include <functional>

namespace gilscope::test {

class TmuxSession {
public:
    // Runs `command` (a shell command line) in a width x height terminal.
    TmuxSession(const QString& command, int width, int height);
    ~TmuxSession(); // ends the session and its server
    TmuxSession(const TmuxSession&) = delete;
    TmuxSession& operator=(const TmuxSession&) = delete;

    bool started() const { return started_; }
    QString screen() const;
    void sendKeys(const QString& keys) const;
    bool resize(int width, int height) const;
    // Polls the screen until `done` holds for it (true) or timeoutMs pass (false); *last
    // gets the last screen seen.
    bool waitForScreen(const std::function<bool(const QString&)>& done, QString* last,
                       int timeoutMs = 60000) const;

private:
    QStringList tmux(const QStringList& args) const;
    QString socket_;
    bool started_ = false;
};

bool haveTmux();

} // namespace gilscope::test
