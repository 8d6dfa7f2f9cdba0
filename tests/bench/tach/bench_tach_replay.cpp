// Benchmark: write an N-sample zstd .bin with TachWriter, then replay it to Gecko JSON
// (TachReader -> GeckoCollector -> export), as `gilscope replay --gecko` does.
// Prints samples/s and MB/s for both, and the peak RSS of each replay, for 1M and 10M
// samples, so "peak RSS independent of file length" can be read off directly.
//
//   cmake --preset release && cmake --build --preset release --target bench_tach_replay
//   build/release/tests/bench/tach/bench_tach_replay [--runs 3] [--small 1000000] [--large
//   10000000]
//
// Each write and each replay runs in a fresh child process (fork), so its peak RSS
// (getrusage ru_maxrss) belongs to that step alone. Figures are medians over --runs.
#include "core/gecko/gecko_collector.h"
#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

struct StepResult {
    double seconds = 0;
    uint64_t bytes = 0; // bytes produced (file size)
    long peakRssKb = 0;
    double cpuSeconds = 0; // user + system time of the step's process
    uint64_t samples = 0;
    bool ok = false;
};

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

long peakRssKb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// The machine is shared: CPU time shows the cost of the step itself, wall time what a
// user waited.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Decodes without a consumer: the reader's own cost.
struct DiscardSink final : SampleSink {
    void addBatch(const SampleBatch& b) override { samples += b.timestampsUs.size(); }
    uint64_t samples = 0;
};

StepResult replayOnly(const fs::path& bin) {
    StepResult r;
    const double c0 = cpuSeconds(), t0 = now();
    auto reader = TachReader::open(bin);
    if (!reader) return r;
    DiscardSink sink;
    auto n = reader->replay(sink);
    r.seconds = now() - t0;
    r.cpuSeconds = cpuSeconds() - c0;
    r.samples = n.ok() ? *n : 0;
    r.peakRssKb = peakRssKb();
    r.ok = n.ok();
    return r;
}

// Live-like synthetic recording: 8 threads sampled every 1 ms, stacks 10-60 deep over
// a pool of 2000 frames and 3000 call paths, a thread's stack changing on ~15 % of its
// samples and its GIL state on ~5 %.
StepResult writeRecording(const fs::path& path, uint64_t samples) {
    StepResult r;
    FrameRegistry registry;
    std::vector<FrameId> pool;
    for (int i = 0; i < 2000; ++i) {
        FrameInfo f;
        f.filename = registry.internString("/srv/app/module_" + std::to_string(i % 97) + ".py");
        f.funcname = registry.internString("function_" + std::to_string(i));
        f.line = 10 + i % 500;
        f.endLine = f.line + 1;
        f.column = 4;
        f.endColumn = 30;
        pool.push_back(registry.internFrame(f));
    }
    auto writer = TachWriter::create(path);
    if (!writer) {
        std::fprintf(stderr, "bench: %s\n", writer.error().message.c_str());
        return r;
    }
    RecordingInfo info;
    info.startTimeUs = 1'000'000;
    info.sampleIntervalUs = 1000;
    info.mode = 3;
    info.captureFeatures = 5;
    (*writer)->begin(registry, info);
    constexpr int kThreads = 8;
    std::mt19937 rng(12345);
    // A program has a bounded set of call paths: 3000 stacks, each derived from an
    // earlier one by returning from and calling a few functions (10-60 frames deep).
    std::vector<std::vector<FrameId>> paths(3000);
    for (int k = 0; k < 30; ++k)
        paths[0].push_back(pool[rng() % pool.size()]);
    for (size_t i = 1; i < paths.size(); ++i) {
        paths[i] = paths[rng() % i];
        for (unsigned pop = rng() % 4; pop > 0 && paths[i].size() > 10; --pop)
            paths[i].erase(paths[i].begin());
        for (unsigned push = rng() % 4; push > 0 && paths[i].size() < 60; --push)
            paths[i].insert(paths[i].begin(), pool[rng() % pool.size()]);
    }
    std::vector<size_t> at(kThreads);
    for (int t = 0; t < kThreads; ++t)
        at[t] = rng() % paths.size();
    std::vector<bool> gil(kThreads, false);
    const double t0 = now();
    uint64_t written = 0, ts = info.startTimeUs;
    while (written < samples) {
        ts += 1000;
        for (int t = 0; t < kThreads && written < samples; ++t, ++written) {
            // A thread's stack changes on ~15 % of its samples, to a nearby call path.
            if (rng() % 100 < 15) at[t] = (at[t] + paths.size() + rng() % 7 - 3) % paths.size();
            if (rng() % 100 < 5) gil[t] = !gil[t]; // GIL/CPU state changes now and then
            const uint64_t stamp = ts;
            SampleBatch b;
            b.threadId = 1000 + t;
            b.status = (t == 0 ? 32u : 0u) | (gil[t] ? 3u : 2u);
            b.frames = paths[at[t]];
            b.timestampsUs = std::span<const uint64_t>(&stamp, 1);
            (*writer)->addBatch(b);
        }
    }
    (*writer)->finish({});
    auto s = (*writer)->finalize();
    r.seconds = now() - t0;
    if (!s) {
        std::fprintf(stderr, "bench: %s\n", s.error().message.c_str());
        return r;
    }
    r.bytes = fs::file_size(path);
    r.samples = written;
    r.peakRssKb = peakRssKb();
    r.ok = true;
    return r;
}

StepResult replayToGecko(const fs::path& bin, const fs::path& json) {
    StepResult r;
    const double c0 = cpuSeconds(), t0 = now();
    auto reader = TachReader::open(bin);
    if (!reader) {
        std::fprintf(stderr, "bench: %s\n", reader.error().message.c_str());
        return r;
    }
    GeckoOptions options;
    options.intervalUs = reader->info().sampleIntervalUs;
    GeckoCollector collector(options);
    auto n = reader->replay(collector);
    if (!n) {
        std::fprintf(stderr, "bench: %s\n", n.error().message.c_str());
        return r;
    }
    auto s = collector.exportTo(json);
    r.seconds = now() - t0;
    r.cpuSeconds = cpuSeconds() - c0;
    if (!s) {
        std::fprintf(stderr, "bench: %s\n", s.error().message.c_str());
        return r;
    }
    r.samples = *n;
    r.bytes = fs::file_size(json);
    r.peakRssKb = peakRssKb();
    r.ok = true;
    return r;
}

// Runs fn in a forked child and returns its result through a pipe.
template <typename Fn>
StepResult inChild(Fn fn) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        StepResult r = fn();
        (void)!write(fds[1], &r, sizeof r);
        _exit(0);
    }
    close(fds[1]);
    StepResult r;
    if (read(fds[0], &r, sizeof r) != static_cast<ssize_t>(sizeof r)) r.ok = false;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return r;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Summary {
    uint64_t samples = 0;
    double writeSps = 0, binMb = 0, replaySps = 0, jsonMbps = 0, jsonMb = 0;
    double replayCpuSps = 0, decodeSps = 0, decodeCpuSps = 0;
    long decodeRssKb = 0;
    long writeRssKb = 0, replayRssKb = 0;
};

bool measure(const fs::path& dir, uint64_t samples, int runs, Summary& out) {
    const fs::path bin = dir / ("bench-" + std::to_string(samples) + ".bin");
    const fs::path json = dir / ("bench-" + std::to_string(samples) + ".json");
    std::vector<double> writeSps, replaySps, jsonMbps, writeRss, replayRss, replayCpuSps, decodeSps,
        decodeCpuSps, decodeRss;
    for (int i = 0; i < runs; ++i) {
        StepResult w = inChild([&] { return writeRecording(bin, samples); });
        if (!w.ok) return false;
        writeSps.push_back(w.samples / w.seconds);
        writeRss.push_back(static_cast<double>(w.peakRssKb));
        out.binMb = w.bytes / 1e6;
        StepResult d = inChild([&] { return replayOnly(bin); });
        if (!d.ok || d.samples != samples) return false;
        decodeSps.push_back(d.samples / d.seconds);
        decodeCpuSps.push_back(d.samples / d.cpuSeconds);
        decodeRss.push_back(static_cast<double>(d.peakRssKb));
        StepResult r = inChild([&] { return replayToGecko(bin, json); });
        if (!r.ok || r.samples != samples) return false;
        replaySps.push_back(r.samples / r.seconds);
        replayCpuSps.push_back(r.samples / r.cpuSeconds);
        jsonMbps.push_back(r.bytes / 1e6 / r.seconds);
        replayRss.push_back(static_cast<double>(r.peakRssKb));
        out.jsonMb = r.bytes / 1e6;
        fs::remove(json);
    }
    fs::remove(bin);
    out.samples = samples;
    out.writeSps = median(writeSps);
    out.replaySps = median(replaySps);
    out.jsonMbps = median(jsonMbps);
    out.writeRssKb = static_cast<long>(median(writeRss));
    out.replayRssKb = static_cast<long>(median(replayRss));
    out.replayCpuSps = median(replayCpuSps);
    out.decodeSps = median(decodeSps);
    out.decodeCpuSps = median(decodeCpuSps);
    out.decodeRssKb = static_cast<long>(median(decodeRss));
    return true;
}

} // namespace

int main(int argc, char** argv) {
    int runs = 3;
    uint64_t small = 1'000'000, large = 10'000'000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--runs"))
            runs = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--small"))
            small = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--large"))
            large = std::strtoull(argv[i + 1], nullptr, 10);
    }
    auto dir = TempDir::create("gilscope-bench-tach");
    if (!dir) {
        std::fprintf(stderr, "bench: %s\n", dir.error().message.c_str());
        return 1;
    }
    std::printf(
        "tach benchmark: %d run(s) per size, medians; wall = elapsed, cpu = user+sys of the step\n",
        runs);
    Summary results[2];
    for (int k = 0; k < 2; ++k) {
        if (!measure(dir->path(), k == 0 ? small : large, runs, results[k])) {
            std::fprintf(stderr, "bench: a step failed\n");
            return 1;
        }
        const Summary& s = results[k];
        std::printf("\n%llu samples (.bin %.2f MB zstd, Gecko JSON %.1f MB)\n",
                    static_cast<unsigned long long>(s.samples), s.binMb, s.jsonMb);
        std::printf("  write .bin (TachWriter):       %6.2f M samples/s wall               peak "
                    "RSS %6.1f MiB\n",
                    s.writeSps / 1e6, s.writeRssKb / 1024.0);
        std::printf("  decode only (TachReader):      %6.2f M samples/s wall, %6.2f cpu   peak RSS "
                    "%6.1f MiB\n",
                    s.decodeSps / 1e6, s.decodeCpuSps / 1e6, s.decodeRssKb / 1024.0);
        std::printf("  replay -> Gecko JSON (e2e):    %6.2f M samples/s wall, %6.2f cpu   peak RSS "
                    "%6.1f MiB, "
                    "%.1f MB/s written\n",
                    s.replaySps / 1e6, s.replayCpuSps / 1e6, s.replayRssKb / 1024.0, s.jsonMbps);
        std::fflush(stdout);
    }
    std::printf(
        "\nreplay->Gecko peak RSS, %llu vs %llu samples: %+.1f MiB (target within 20 MiB)\n",
        static_cast<unsigned long long>(large), static_cast<unsigned long long>(small),
        (results[1].replayRssKb - results[0].replayRssKb) / 1024.0);
    std::printf(
        "end-to-end replay at %llu samples: %.2f M samples/s wall, %.2f cpu (target >= 2 M/s)\n",
        static_cast<unsigned long long>(large), results[1].replaySps / 1e6,
        results[1].replayCpuSps / 1e6);
    return 0;
}
