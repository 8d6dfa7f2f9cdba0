#pragma once

#include <QEventLoop>
#include <QTimer>

#include <functional>

namespace gilscope::bench {

// Runs the event loop (never QTest::qWait, which sleeps between rounds and would add its
// naps to what is timed) until pred() holds or timeoutMs pass; checks every pollMs.
inline bool runUntil(const std::function<bool()>& pred, int timeoutMs, int pollMs = 2) {
    QEventLoop loop;
    QTimer poll;
    poll.setInterval(pollMs);
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (pred()) loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    poll.start();
    if (!pred()) loop.exec();
    return pred();
}

// Runs the event loop for ms milliseconds.
inline void runFor(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace gilscope::bench
