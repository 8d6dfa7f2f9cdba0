#pragma once

#include "core/pprof/pprof_sink.h"
#include "core/push/push_labels.h"
#include "core/push/push_queue.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gilscope::push {

// One HTTP answer, or why there was none (status 0).
struct PostResult {
    int status = 0;
    std::string body;
    std::string error;
};

// Sends one push request body to the server. Made and used on the pusher's thread only.
class PushTransport {
public:
    virtual ~PushTransport() = default;
    virtual PostResult post(const std::string& body) = 0;
};

enum class PushVerdict { Sent, Retry, Refused };
// 2xx: sent. 400, 413 and 422: the server refuses the data itself; sending it again
// cannot help. Anything else (no answer, 401/403/404, 429, 5xx): kept and retried.
PushVerdict verdictOf(const PostResult& result);
// What the server said: a Connect error's "message", else the start of its body.
std::string serverMessage(const PostResult& result);

enum class PushFormat {
    Pyroscope, // push.v1.PushRequest (Connect, protobuf)
    Parca      // WriteRawRequest (grpc-gateway, JSON)
};

struct PusherOptions {
    PushFormat format = PushFormat::Pyroscope;
    std::vector<PushLabel> labels; // the series of the sink given to the constructor
    std::string target;            // the endpoint, for messages
    uint64_t intervalMs = 10'000;
    uint64_t minBackoffMs = 1'000; // after a failure; doubles up to maxBackoffMs
    uint64_t maxBackoffMs = 60'000;
};

// Continuous push: a thread of its own that, every interval, takes the sink's samples
// since the last time (a swap: the sampler never waits for it) as a push request with a
// fresh ID and sends it. What the server cannot take waits in a queue on disk, sent oldest
// first (a new profile joins the queue while it is not empty). A failed send waits
// (exponential backoff) with everything queued; a refused profile is reported once and
// dropped. What it does worth saying goes to `log`, one line each. It serves one sink
// (a recording) or, for the host agent, many, each its own series, added and retired
// as processes come and go.
class Pusher {
public:
    using TransportFactory = std::function<std::unique_ptr<PushTransport>()>;
    using Log = std::function<void(const std::string&)>;

    // One series: `sink` with options.labels; the sink must outlive the pusher.
    Pusher(pprof::PprofSink& sink, PushQueue queue, TransportFactory transport,
           PusherOptions options, Log log);
    // No series yet: addSeries() brings them.
    Pusher(PushQueue queue, TransportFactory transport, PusherOptions options, Log log);
    ~Pusher();
    Pusher(const Pusher&) = delete;
    Pusher& operator=(const Pusher&) = delete;

    void start();
    // Each interval from now on also pushes this sink's samples with these labels.
    void addSeries(std::shared_ptr<pprof::PprofSink> sink, std::vector<PushLabel> labels);
    // Its recording ended: its last samples are queued at once, then the pusher lets go
    // of it.
    void retireSeries(const pprof::PprofSink* sink);
    // Takes the last (partial) interval, then sends what is queued until all is sent, the
    // server fails, `flushMs` pass or `cancelled` says so; then the thread ends.
    void stop(uint64_t flushMs, std::function<bool()> cancelled = {});
    // Ends every series' interval now (the control socket's `flush`): its samples are
    // pushed, or queued when the server cannot take them, before this returns; the next
    // interval starts now. False when the pusher is not running.
    bool cutNow();

    struct Totals {
        uint64_t profiles = 0; // intervals with samples, taken
        uint64_t sent = 0;
        uint64_t refused = 0;
        uint64_t dropped = 0; // the queue was full, or a queued file unreadable
        size_t left = 0;      // still queued (on disk) at the end
    };
    Totals totals() const;

private:
    struct Series {
        std::shared_ptr<pprof::PprofSink> sink;
        std::vector<PushLabel> labels;
        bool retiring = false;
    };
    void run();
    // Sends (or queues) what the series recorded since the last cut: all of them, or only
    // the retiring ones (which are then dropped). Straight from memory only before
    // `sendBeforeMs`: a stop without flush queues.
    void cut(bool retiringOnly, uint64_t sendBeforeMs);
    // The series' samples since the last cut as a request body; none when it had none.
    std::optional<std::string> cutOne(const Series& series);
    // Onto the disk queue, saying what had to be dropped to make room.
    void enqueue(const std::string& body);
    // One post, and what it means for the backoff and the totals (sequence: the queued
    // item's, 0 for one sent from memory).
    PushVerdict send(const std::string& body, uint64_t sequence);
    // Sends the queue oldest first until it is empty or a send fails; stops early at
    // `deadlineMs` (monotonic) or when the stop's cancel predicate fires.
    void drain(uint64_t deadlineMs);
    bool cancelled() const;

    PushQueue queue_;
    TransportFactory makeTransport_;
    std::unique_ptr<PushTransport> transport_;
    const PusherOptions options_;
    Log log_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable cutDone_;
    std::vector<Series> series_;
    bool retirePending_ = false;
    bool stopping_ = false;
    bool cutRequested_ = false;
    uint64_t cutsDone_ = 0; // cutNow()'s, so that each caller waits for its own
    uint64_t flushMs_ = 0;
    std::function<bool()> cancelled_;
    Totals totals_;
    std::thread thread_;

    // The pusher thread's own: failure streak and backoff.
    bool failing_ = false;
    uint64_t backoffMs_ = 0;
    uint64_t nextTryMs_ = 0;
};

} // namespace gilscope::push
