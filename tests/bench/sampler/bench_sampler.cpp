// Sampler benchmark on a real Python target, in-process: for each requested rate,
// attach, sample for a few seconds into a sink that only counts, and report the
// achieved rate, error and missed %, and the sampler thread's own CPU time (as a %
// of one core, from CLOCK_THREAD_CPUTIME_ID). Medians over --repeat runs.
//
//   bench_sampler --python PY --script tests/targets/deep30.py [--rates 1k,10k,...]
//                 [--duration S] [--repeat N] [-a] [-- script args]
#include "core/remote/live_stack_source.h"
#include "core/sampler/rate_parser.h"
#include "core/sampler/sampler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <csignal>
#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

using namespace gilscope;

namespace {

struct CountingSink final : SampleSink {
    uint64_t batches = 0, frames = 0;
    void addBatch(const SampleBatch& b) override {
        ++batches;
        frames += b.frames.size();
    }
};

// Reads nothing: the sampler's scheduling cost alone (its sleeps and wake-ups) at a
// rate, measured side by side with the real runs, shows what part of the CPU use is
// the platform's wake-up cost rather than reading.
struct NullSource final : StackSource {
    FrameRegistry reg;
    ReadOutcome read(std::vector<ThreadStack>&, size_t& count) override {
        count = 0;
        return ReadOutcome::Ok;
    }
    FrameRegistry& registry() override { return reg; }
    int pid() const override { return 0; }
    PythonVersion pythonVersion() const override { return {}; }
};

struct Target {
    pid_t pid = -1;
    ~Target() {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
};

// Starts PY SCRIPT ARGS with stdout on a pipe and waits for "READY <pid>".
bool startTarget(Target& t, const std::string& python, const std::string& script,
                 const std::vector<std::string>& args) {
    int out[2];
    if (pipe(out) != 0) return false;
    std::vector<std::string> argv = {python, script};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    t.pid = fork();
    if (t.pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execv(cargv[0], cargv.data());
        _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n')
        line += c;
    close(out[0]);
    return line.rfind("READY", 0) == 0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Run {
    double achieved, errorPct, missedPct, cpuPct, threadSamplesPerSec;
};

Run measure(StackSource& source, uint64_t intervalUs, double seconds, int rtPriority) {
    CountingSink sink;
    SamplerOptions o;
    o.intervalUs = intervalUs;
    o.durationSec = seconds;
    o.realtimePriority = rtPriority;
    Sampler s(source, sink, o);
    s.start();
    s.wait();
    const SamplerStats st = s.stats();
    return {st.achievedRateOverall, st.errorPct, st.missedPct,
            100.0 * st.samplerCpuSec / st.elapsedSec,
            static_cast<double>(st.threadSamples) / st.elapsedSec};
}

} // namespace

int main(int argc, char** argv) {
    std::string python, script, rates = "1k,10k,20k,50k,100k,200k,1000k";
    double duration = 3;
    int repeat = 3;
    bool allThreads = false;
    int rtPriority = 0;
    std::vector<std::string> scriptArgs;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--python")
            python = next();
        else if (a == "--script")
            script = next();
        else if (a == "--rates")
            rates = next();
        else if (a == "--duration")
            duration = std::atof(next().c_str());
        else if (a == "--repeat")
            repeat = std::atoi(next().c_str());
        else if (a == "-a")
            allThreads = true;
        else if (a == "--rt")
            rtPriority = std::atoi(next().c_str());
        else if (a == "--") {
            for (++i; i < argc; ++i)
                scriptArgs.push_back(argv[i]);
        }
    }
    if (python.empty() || script.empty()) {
        std::fprintf(stderr, "usage: bench_sampler --python PY --script SCRIPT [--rates 1k,10k] "
                             "[--duration S] [--repeat N] [-a] [-- args]\n");
        return 2;
    }
    Target target;
    if (!startTarget(target, python, script, scriptArgs)) {
        std::fprintf(stderr, "bench_sampler: the target did not start\n");
        return 1;
    }
    ReadOptions ro;
    ro.allThreads = allThreads;
    ro.cpuState = false; // wall mode, as the collapsed and binary formats use
    auto source = openLiveProcess(target.pid, ro);
    if (!source) {
        std::fprintf(stderr, "bench_sampler: %s\n", source.error().message.c_str());
        return 1;
    }
    std::printf("target: %s %s (Python %s)%s%s, %.0f s per run, median of %d runs\n",
                python.c_str(), script.c_str(), (*source)->pythonVersion().str().c_str(),
                allThreads ? ", all threads (-a)" : "",
                rtPriority > 0 ? ", sampler thread SCHED_FIFO" : "", duration, repeat);
    {
        // The reader's own cost: back-to-back reads, no scheduling at all.
        std::vector<ThreadStack> stacks;
        size_t count = 0;
        uint64_t reads = 0, errors = 0;
        timespec c0{}, c1{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        const uint64_t t0 = monotonicNowUs();
        while (monotonicNowUs() - t0 < 1000000) {
            if ((*source)->read(stacks, count) != ReadOutcome::Ok) ++errors;
            ++reads;
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        const double cpuUs = (c1.tv_sec - c0.tv_sec) * 1e6 + (c1.tv_nsec - c0.tv_nsec) / 1e3;
        std::printf("back-to-back reads: %llu/s, %.1f us CPU per read, %.2f%% errors\n",
                    static_cast<unsigned long long>(reads), cpuUs / reads, 100.0 * errors / reads);
    }
    std::printf("%-10s %14s %16s %9s %9s %22s %20s\n", "requested", "achieved/s", "thread-stacks/s",
                "errors%", "missed%", "sampler CPU % of core", "no-read floor CPU %");
    NullSource nothing;
    double best = 0;
    size_t start = 0;
    while (start <= rates.size()) {
        const size_t comma = rates.find(',', start);
        const std::string rate =
            rates.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? rates.size() + 1 : comma + 1;
        auto interval = parseSamplingRate(rate);
        if (!interval) {
            std::fprintf(stderr, "bench_sampler: %s\n", interval.error().message.c_str());
            return 2;
        }
        std::vector<double> ach, err, mis, cpu, tss, floor;
        for (int r = 0; r < repeat; ++r) {
            floor.push_back(measure(nothing, interval.value(), duration, rtPriority).cpuPct);
            const Run m = measure(**source, interval.value(), duration, rtPriority);
            ach.push_back(m.achieved);
            err.push_back(m.errorPct);
            mis.push_back(m.missedPct);
            cpu.push_back(m.cpuPct);
            tss.push_back(m.threadSamplesPerSec);
        }
        std::printf("%-10s %14.0f %16.0f %9.2f %9.2f %22.1f %20.1f\n", rate.c_str(), median(ach),
                    median(tss), median(err), median(mis), median(cpu), median(floor));
        std::fflush(stdout);
        if (median(err) < 1.0) best = std::max(best, median(ach));
    }
    std::printf("highest achieved rate with error < 1%%: %.0f samples/s\n", best);
    return 0;
}
