#include "core/push/pusher.h"
#include "core/util/guarded_thread.h"

#include "core/push/push_request.h"
#include "core/sampler/sampler_clock.h"
#include "core/util/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>

namespace gilscope::push {

namespace {

// Pyroscope refuses a profile with more samples than this (max_profile_stacktrace_samples).
constexpr size_t kPyroscopeMaxSamples = 16'000;

uint64_t nowMs() {
    return monotonicNowUs() / 1000;
}

std::string plural(uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string seconds(uint64_t ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000.0);
    return text;
}

} // namespace

PushVerdict verdictOf(const PostResult& result) {
    if (result.status >= 200 && result.status < 300) return PushVerdict::Sent;
    if (result.status == 400 || result.status == 413 || result.status == 422)
        return PushVerdict::Refused;
    return PushVerdict::Retry;
}

std::string serverMessage(const PostResult& result) {
    if (result.status == 0) return result.error.empty() ? "no answer" : result.error;
    std::string said;
    const auto json = nlohmann::json::parse(result.body, nullptr, false);
    if (json.is_object() && json.contains("message") && json["message"].is_string())
        said = json["message"].get<std::string>();
    else
        said = result.body.substr(0, 300);
    said = escapeForDisplay(said);
    return "HTTP " + std::to_string(result.status) + (said.empty() ? "" : ": " + said);
}

Pusher::Pusher(PushQueue queue, TransportFactory transport, PusherOptions options, Log log)
    : queue_(std::move(queue)), makeTransport_(std::move(transport)), options_(std::move(options)),
      log_(std::move(log)), backoffMs_(options_.minBackoffMs) {
}

Pusher::Pusher(pprof::PprofSink& sink, PushQueue queue, TransportFactory transport,
               PusherOptions options, Log log)
    : Pusher(std::move(queue), std::move(transport), std::move(options), std::move(log)) {
    // Not owned: an empty owner with the caller's pointer.
    series_.push_back(
        {std::shared_ptr<pprof::PprofSink>(std::shared_ptr<void>(), &sink), options_.labels});
}

void Pusher::addSeries(std::shared_ptr<pprof::PprofSink> sink, std::vector<PushLabel> labels) {
    const std::lock_guard lock(mutex_);
    series_.push_back({std::move(sink), std::move(labels)});
}

void Pusher::retireSeries(const pprof::PprofSink* sink) {
    {
        const std::lock_guard lock(mutex_);
        for (Series& s : series_)
            if (s.sink.get() == sink) s.retiring = retirePending_ = true;
    }
    wake_.notify_all();
}

Pusher::~Pusher() {
    stop(0);
    queue_.removeIfEmpty(); // also when it never started (the recording could not)
}

void Pusher::start() {
    if (!thread_.joinable())
        thread_ = std::thread(guardedThreadBody("the pusher", [this] { run(); }));
}

void Pusher::stop(uint64_t flushMs, std::function<bool()> cancelled) {
    {
        const std::lock_guard lock(mutex_);
        if (!thread_.joinable()) return;
        stopping_ = true;
        flushMs_ = flushMs;
        cancelled_ = std::move(cancelled);
    }
    wake_.notify_all();
    thread_.join();
}

bool Pusher::cutNow() {
    std::unique_lock lock(mutex_);
    if (!thread_.joinable() || stopping_) return false;
    cutRequested_ = true;
    const uint64_t mine = cutsDone_ + 1;
    wake_.notify_all();
    cutDone_.wait(lock, [&] { return cutsDone_ >= mine || stopping_; });
    return cutsDone_ >= mine;
}

Pusher::Totals Pusher::totals() const {
    const std::lock_guard lock(mutex_);
    return totals_;
}

bool Pusher::cancelled() const {
    const std::lock_guard lock(mutex_);
    return cancelled_ && cancelled_();
}

void Pusher::run() {
    transport_ = makeTransport_();
    uint64_t nextCutMs = nowMs() + options_.intervalMs;
    nextTryMs_ = nowMs(); // a previous run's queue goes first
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            const uint64_t wakeMs = queue_.empty() ? nextCutMs : std::min(nextCutMs, nextTryMs_);
            const auto now = nowMs();
            if (!stopping_ && !retirePending_ && !cutRequested_ && wakeMs > now)
                wake_.wait_for(lock, std::chrono::milliseconds(wakeMs - now),
                               [this] { return stopping_ || retirePending_ || cutRequested_; });
            if (stopping_) break;
        }
        cut(true, UINT64_MAX);
        const uint64_t now = nowMs();
        bool asked = false;
        {
            const std::lock_guard lock(mutex_);
            std::swap(asked, cutRequested_);
        }
        if (asked) {
            cut(false, UINT64_MAX);
            nextCutMs = nowMs() + options_.intervalMs;
            {
                const std::lock_guard lock(mutex_);
                ++cutsDone_;
            }
            cutDone_.notify_all();
        } else if (now >= nextCutMs) {
            cut(false, UINT64_MAX);
            nextCutMs += options_.intervalMs;
            if (nextCutMs <= now) nextCutMs = now + options_.intervalMs; // a long send
        }
        if (!queue_.empty() && nowMs() >= nextTryMs_) drain(UINT64_MAX);
    }
    uint64_t flushMs;
    {
        const std::lock_guard lock(mutex_);
        flushMs = flushMs_;
    }
    cutDone_.notify_all(); // a cutNow() still waiting: the final cut below takes its samples
    const uint64_t deadlineMs = nowMs() + flushMs;
    failing_ = false; // one more try at the end, whatever the backoff said
    cut(false, deadlineMs);
    if (flushMs > 0) drain(deadlineMs);
    queue_.removeIfEmpty();
    const std::lock_guard lock(mutex_);
    totals_.left = queue_.size();
    totals_.dropped += queue_.unreadable();
}

void Pusher::cut(bool retiringOnly, uint64_t sendBeforeMs) {
    std::vector<Series> cutting;
    {
        const std::lock_guard lock(mutex_);
        if (retiringOnly && !retirePending_) return;
        for (const Series& s : series_)
            if (s.retiring || !retiringOnly) cutting.push_back(s);
        std::erase_if(series_, [](const Series& s) { return s.retiring; });
        retirePending_ = false;
    }
    // Every series is cut first, so that their intervals end together; then sent.
    std::vector<std::string> bodies;
    for (const Series& s : cutting)
        if (std::optional<std::string> body = cutOne(s)) bodies.push_back(std::move(*body));
    for (std::string& body : bodies) {
        // While the server answers and nothing waits on disk, a profile goes straight from
        // memory: the disk is for what the server could not take (and keeps the order).
        if (queue_.empty() && !failing_ && nowMs() < sendBeforeMs && !cancelled()) {
            const PushVerdict verdict = send(body, 0);
            if (verdict != PushVerdict::Retry) continue;
        }
        enqueue(body);
    }
}

std::optional<std::string> Pusher::cutOne(const Series& series) {
    pprof::TakenProfile taken = series.sink->take(true);
    if (taken.profile->empty()) return std::nullopt;
    taken.header.maxSamples = kPyroscopeMaxSamples;
    auto gz = pprof::encodeGzipped(taken);
    Result<std::string> body = !gz ? Result<std::string>(gz.error())
                               : options_.format == PushFormat::Parca
                                   ? Result<std::string>(encodeParcaWriteRaw(series.labels, *gz))
                                   : encodePushRequest(series.labels, *gz, newPushId());
    const std::lock_guard lock(mutex_);
    if (!body) {
        log_("push: cannot encode this interval's profile: " + body.error().message);
        ++totals_.dropped;
        return std::nullopt;
    }
    ++totals_.profiles;
    return std::move(*body);
}

void Pusher::enqueue(const std::string& body) {
    auto dropped = queue_.push(body);
    const std::lock_guard lock(mutex_);
    if (!dropped) {
        ++totals_.dropped;
        log_("push: cannot queue this interval's profile (" + dropped.error().message +
             "); it is lost");
        return;
    }
    if (*dropped > 0) {
        totals_.dropped += *dropped;
        log_("push: the queue is full: dropped the " +
             plural(*dropped, "oldest profile", "oldest profiles") + " to keep the newest");
    }
    if (failing_)
        log_("push: " + plural(queue_.size(), "profile", "profiles") + " queued for " +
             options_.target + " (in " + queue_.dir().string() + ")");
}

PushVerdict Pusher::send(const std::string& body, uint64_t sequence) {
    const PostResult result = transport_->post(body);
    const PushVerdict verdict = verdictOf(result);
    const std::lock_guard lock(mutex_);
    switch (verdict) {
    case PushVerdict::Sent:
        ++totals_.sent;
        if (failing_)
            log_("push: " + options_.target + " answers again; sending the " +
                 plural(queue_.size(), "queued profile", "queued profiles") + " left");
        failing_ = false;
        backoffMs_ = options_.minBackoffMs;
        break;
    case PushVerdict::Refused: {
        ++totals_.refused;
        const std::string id = pushIdOf(body);
        log_("push: the server refused profile " +
             (id.empty() ? "#" + std::to_string(sequence) : id) + " (" + serverMessage(result) +
             "); it is dropped, not sent again");
        break;
    }
    case PushVerdict::Retry:
        failing_ = true;
        nextTryMs_ = nowMs() + backoffMs_;
        // The profile being sent is queued after this line: count it in.
        log_("push: " + options_.target + " failed (" + serverMessage(result) + "); " +
             plural(queue_.size() + (sequence == 0), "profile", "profiles") +
             " queued, next try in " + seconds(backoffMs_));
        backoffMs_ = std::min(backoffMs_ * 2, options_.maxBackoffMs);
        break;
    }
    return verdict;
}

void Pusher::drain(uint64_t deadlineMs) {
    while (auto item = queue_.front()) {
        if (nowMs() >= deadlineMs || cancelled()) return;
        const PushVerdict verdict = send(item->body, item->sequence);
        if (verdict == PushVerdict::Retry) return;
        queue_.pop(item->sequence);
    }
}

} // namespace gilscope::push
