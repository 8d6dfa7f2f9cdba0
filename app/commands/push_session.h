#pragma once

// --push for a record session: the series' labels, the pprof sink the pusher takes each
// interval's samples from, the on-disk queue and the pusher thread, and what is said at
// the end.

#include "app/commands/record_options.h"
#include "core/pprof/pprof_sink.h"
#include "core/push/pusher.h"
#include "core/sample/stack_source.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gilscope::cli {

// The labels of a target's series: __name__=process_cpu, service_name, pid, hostname,
// python_version, then the user's --labels; checked against Pyroscope's rules.
Result<std::vector<push::PushLabel>> pushLabels(const PushOptions& options,
                                                const StackSource& source);

// What `attach --push` and `agent` share: the queue under --push-queue, a pusher for the
// options' endpoint (headers, auth, timeouts, backoff), and what is said at the end.
Result<push::PushQueue> openPushQueue(const PushOptions& options);
std::unique_ptr<push::Pusher> makePusher(const PushOptions& options, push::PushQueue queue,
                                         pprof::PprofSink* sink,
                                         std::vector<push::PushLabel> labels);
void reportPushTotals(const push::Pusher::Totals& totals, const std::string& url);
// A pprof sink for one live target's pushes.
pprof::PprofSinkOptions pushSinkOptions(const ReadOptions& read);

class PushSession {
public:
    // Opens the queue and checks the labels; nothing is sent before start().
    static Result<std::unique_ptr<PushSession>> create(const RecordOptions& options,
                                                       StackSource& source);
    SampleSink& sink() { return sink_; }
    void start() { pusher_->start(); }
    // After the recording: pushes the last interval and what is queued (for up to 10 s,
    // less if `cancelled` fires), then says what was sent and what is left on disk.
    void finish(std::function<bool()> cancelled);

private:
    PushSession(const RecordOptions& options, push::PushQueue queue,
                std::vector<push::PushLabel> labels);

    pprof::PprofSink sink_;
    std::string url_;
    std::unique_ptr<push::Pusher> pusher_;
};

} // namespace gilscope::cli
