#pragma once

// `gilscope agent`: every Python process on the host it may read, found by a /proc scan
// every second (new ones, exec'd ones and un-exec'd fork workers, as --subprocesses
// judges them), each recorded by its own sampler into its own pprof sink and pushed by
// one pusher as its own series (pid, service_name, python_version, hostname); a process
// that exits has its last samples pushed and is dropped. The log (stderr) says what it
// records, what it cannot attach to and why, and what ended.

#include "app/commands/push_options.h"
#include "core/control/control_server.h"
#include "core/pipeline/pipeline_recording.h"
#include "core/pprof/pprof_sink.h"
#include "core/push/pusher.h"
#include "core/remote/process_scanner.h"
#include "core/remote/python_process_watch.h"
#include "core/sample/stack_source.h"
#include "core/sampler/sampler_group.h"

#include <QRegularExpression>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gilscope::cli {

struct AgentOptions {
    PushOptions push;
    QRegularExpression match, exclude; // on the command line; empty pattern: not set
    uint64_t intervalUs = 10'000;      // 100 Hz
    ReadOptions read;
    int maxProcesses = 256; // recorded at once; more are said and skipped
    uint64_t scanMs = 1000;
    std::string control; // --control unix:PATH; empty: none
    bool startDisabled = false;
};

class HostAgent {
public:
    static Result<std::unique_ptr<HostAgent>> create(AgentOptions options);
    ~HostAgent(); // stops every recording
    HostAgent(const HostAgent&) = delete;
    HostAgent& operator=(const HostAgent&) = delete;

    // Scans, records and retires until `stopRequested` (polled every 50 ms) or the control
    // socket's `quit` says so;
    // then stops every recording and pushes what is left (for up to 10 s, less if
    // `cancelled` fires). Returns the exit code.
    int run(const std::function<bool()>& stopRequested, const std::function<bool()>& cancelled);

private:
    struct Target {
        int pid = 0;
        std::shared_ptr<pprof::PprofSink> sink;
        // The live reader alone (no --blocking here) into sink. Last: it stops first.
        std::unique_ptr<PipelineRecording> built;
        Recording& recording() const { return built->recording(); }
    };

    HostAgent(AgentOptions options, push::PushQueue queue);
    // --control: what its commands act on (on the socket's thread).
    control::ControlTarget controlTarget();
    void setEnabled(bool on);
    Result<std::string> snapshot(std::string_view pid);
    void stopRecordings(); // every recording, before the control socket and pusher go
    remote::PythonProcessWatch::Look judge(int pid);
    void scan();
    void record(const PythonProcessInfo& info);
    void retireEnded();
    void retire(Target& target, const std::string& why);

    const AgentOptions options_;
    const int self_;
    std::unique_ptr<push::Pusher> pusher_;
    remote::PythonProcessWatch watch_;
    std::unordered_map<int, PythonProcessInfo> judged_; // this scan's Python processes
    SamplerGroup samplers_; // one thread ticks every target's sampler; outlives them
    // Changed on the agent's thread only, under the mutex; the control socket's thread
    // reads it under the mutex.
    std::vector<std::unique_ptr<Target>> targets_;
    std::mutex targetsMutex_;
    std::atomic<bool> enabled_{true};
    std::atomic<bool> quitRequested_{false};
    std::unique_ptr<control::ControlServer> control_; // last: it goes first
};

} // namespace gilscope::cli
