#pragma once

#include "core/remote/live_stack_source.h"
#include "core/sample/stack_source.h"

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <QThread>

#include <memory>
#include <vector>

namespace gilscope::test {

// One successful read (retrying torn reads, as the target keeps running).
struct Snapshot {
    std::vector<ThreadStack> threads;
    size_t count = 0;
};
bool readOnce(StackSource& src, Snapshot& out, QString* error, int attempts = 200);

// Reads until `done(snapshot)` holds or `timeoutMs` passes (the target may still be
// finishing its READY print when the test starts reading). Returns the last snapshot.
template <typename Pred>
bool readUntil(StackSource& src, Snapshot& out, QString* error, Pred done, int timeoutMs = 60000);

// "func" names of a stack, leaf first.
QStringList functionNames(const StackSource& src, const ThreadStack& t);

QString frameText(const StackSource& src, FrameId id);

template <typename Pred>
bool readUntil(StackSource& src, Snapshot& out, QString* error, Pred done, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    do {
        if (!readOnce(src, out, error)) return false;
        if (done(out)) return true;
        QThread::msleep(2);
    } while (timer.elapsed() < timeoutMs);
    return true; // the caller's assertions report what was seen
}

} // namespace gilscope::test
