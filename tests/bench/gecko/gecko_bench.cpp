// Gecko collector benchmark: ingest rate, export throughput, peak RSS at 1M and 10M
// samples (each size in its own process), and cancel latency. Prints medians.
//
//   gecko_bench                 all figures
//   gecko_bench --many-threads [N]  N (default 40,000) one-sample threads only
//   gecko_bench --rss N         (internal) ingest + export N samples, print VmHWM in KiB

#include "core/gecko/gecko_collector.h"
#include "core/sample/thread_status.h"
#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <time.h>
#include <vector>

using namespace gilscope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kThreads = 4;
constexpr int kDepth = 30;

double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// CPU time of this process: the machine is shared, so wall time alone overstates costs.
double cpuSeconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Synthetic live-style stream: one batch per thread-sample, 4 threads taking turns,
// 30-deep stacks whose two innermost frames vary, status changes every ~100 samples.
class Workload {
public:
    Workload() {
        for (int t = 0; t < kThreads; ++t) {
            std::vector<FrameId> stack;
            for (int d = 0; d < kDepth; ++d)
                stack.push_back(
                    frame("/srv/app/pkg" + std::to_string(t) + "/mod" + std::to_string(d) + ".py",
                          10 + d, "function_" + std::to_string(d)));
            stacks_.push_back(stack);
        }
        for (int i = 0; i < 64; ++i)
            leaves_.push_back(frame("/srv/app/leaf.py", 100 + i, "leaf_" + std::to_string(i % 16)));
        for (int i = 0; i < 8; ++i)
            mids_.push_back(frame("/srv/app/mid.py", 200 + i, "mid_" + std::to_string(i)));
    }

    void feed(SampleSink& sink, uint64_t samples) {
        RecordingInfo info;
        info.sampleIntervalUs = 1000;
        sink.begin(registry_, info);
        uint64_t ts = 5'000'000'000ull;
        uint32_t rng = 12345;
        for (uint64_t i = 0; i < samples; ++i) {
            const int t = static_cast<int>(i % kThreads);
            if (t == 0) ts += 1000;
            rng = rng * 1664525u + 1013904223u;
            std::vector<FrameId>& s = stacks_[t];
            s[0] = leaves_[(rng >> 8) % leaves_.size()];
            if ((rng >> 20) % 8 == 0) s[1] = mids_[(rng >> 24) % mids_.size()];
            const uint64_t phase = (i / kThreads / 100 + t) % 3;
            const uint32_t status = (t == 0 ? ThreadStatus::MainThread : 0) |
                                    (phase == 0   ? ThreadStatus::HasGil | ThreadStatus::OnCpu
                                     : phase == 1 ? ThreadStatus::GilRequested
                                                  : ThreadStatus::OnCpu);
            SampleBatch b;
            b.threadId = 1000 + t;
            b.status = status;
            b.frames = s;
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            sink.addBatch(b);
        }
    }

private:
    FrameId frame(const std::string& file, int line, const std::string& func) {
        FrameInfo f;
        f.filename = registry_.internString(file);
        f.funcname = registry_.internString(func);
        f.line = f.endLine = line;
        f.column = 4;
        f.endColumn = 20;
        return registry_.internFrame(f);
    }
    FrameRegistry registry_;
    std::vector<std::vector<FrameId>> stacks_;
    std::vector<FrameId> leaves_, mids_;
};

long vmHwmKiB() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
}

int rssChild(uint64_t samples) {
    auto dir = TempDir::create("gilscope-bench");
    if (!dir.ok()) return 1;
    GeckoCollector collector;
    Workload w;
    w.feed(collector, samples);
    Status s = collector.exportTo(dir->path() / "bench.json");
    if (!s.ok()) {
        std::fprintf(stderr, "export failed: %s\n", s.error().message.c_str());
        return 1;
    }
    std::printf("%ld\n", vmHwmKiB());
    return 0;
}

// A .bin with tens of thousands of one-sample threads (issue 9): the time to open,
// replay and export it, and the spill the export reads (files and bytes in the spill directory,
// measured when the first chunk of JSON is written). Only API that predates the shared
// spill file is used, so the same code measures the old collector.
int manyThreads(const fs::path& dir, int threads) {
    FrameRegistry registry;
    std::vector<FrameId> stack;
    for (int d = 0; d < 3; ++d) {
        FrameInfo f;
        f.filename = registry.internString("/srv/app/worker.py");
        f.funcname = registry.internString("step_" + std::to_string(d));
        f.line = f.endLine = 10 + d;
        stack.push_back(registry.internFrame(f));
    }
    // The .bin of the issue: every thread has one sample.
    const fs::path bin = dir / "many.bin";
    {
        auto writer = TachWriter::create(bin);
        if (!writer.ok()) return 1;
        RecordingInfo info;
        info.sampleIntervalUs = 1000;
        (*writer)->begin(registry, info);
        for (int t = 0; t < threads; ++t) {
            const uint64_t ts = 5'000'000'000ull + static_cast<uint64_t>(t);
            SampleBatch b;
            b.threadId = 100000 + static_cast<uint64_t>(t);
            b.status = ThreadStatus::HasGil | ThreadStatus::OnCpu;
            b.frames = stack;
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            (*writer)->addBatch(b);
        }
        if (!(*writer)->finalize().ok()) return 1;
    }
    std::vector<double> wall;
    size_t files = 0;
    uintmax_t bytes = 0;
    for (int r = 0; r < 3; ++r) {
        GeckoCollector* self = nullptr;
        GeckoOptions options;
        bool measured = false;
        options.beforeWrite = [&](uint64_t) -> Status {
            if (measured || !self) return {};
            measured = true;
            files = 0;
            bytes = 0;
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(self->spillDirectory(), ec)) {
                ++files;
                bytes += e.file_size(ec);
            }
            return {};
        };
        const auto t0 = Clock::now();
        GeckoCollector collector(options);
        self = &collector;
        // As `gilscope replay many.bin --gecko` does it: open, replay, export.
        auto reader = TachReader::open(bin);
        if (!reader.ok()) {
            std::fprintf(stderr, "cannot open %s: %s\n", bin.c_str(),
                         reader.error().message.c_str());
            return 1;
        }
        if (auto n = reader->replay(collector); !n.ok()) {
            std::fprintf(stderr, "replay failed: %s\n", n.error().message.c_str());
            return 1;
        }
        Status s = collector.exportTo(dir / "many.json");
        wall.push_back(seconds(t0, Clock::now()));
        if (!s.ok()) {
            std::fprintf(stderr, "export failed: %s\n", s.error().message.c_str());
            return 1;
        }
    }
    std::printf("%d one-sample threads (a %.1f MB .bin): %.2f s open+replay+export (median of "
                "3); spill read by the export: %zu files, %.1f MB\n",
                threads, static_cast<double>(fs::file_size(bin)) / 1e6, median(wall), files,
                static_cast<double>(bytes) / 1e6);
    return 0;
}

long runRssChild(const char* self, uint64_t samples) {
    const std::string cmd = std::string(self) + " --rss " + std::to_string(samples);
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return -1;
    long kib = -1;
    if (std::fscanf(p, "%ld", &kib) != 1) kib = -1;
    ::pclose(p);
    return kib;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--rss") == 0)
        return rssChild(std::strtoull(argv[2], nullptr, 10));
    if (argc >= 2 && std::strcmp(argv[1], "--many-threads") == 0) {
        auto dir = TempDir::create("gilscope-bench");
        if (!dir.ok()) return 1;
        return manyThreads(dir->path(), argc >= 3 ? std::atoi(argv[2]) : 40000);
    }

    constexpr uint64_t kIngestSamples = 1'000'000;
    constexpr int kRuns = 5;
    auto dir = TempDir::create("gilscope-bench");
    if (!dir.ok()) return 1;

    std::vector<double> ingest, exportMBs, ingestCpu, exportCpu;
    for (int r = 0; r < kRuns; ++r) {
        GeckoCollector collector;
        Workload w;
        const auto t0 = Clock::now();
        const double c0 = cpuSeconds();
        w.feed(collector, kIngestSamples);
        const auto t1 = Clock::now();
        const double c1 = cpuSeconds();
        const fs::path out = dir->path() / "bench.json";
        Status s = collector.exportTo(out);
        const auto t2 = Clock::now();
        const double c2 = cpuSeconds();
        if (!s.ok()) {
            std::fprintf(stderr, "export failed: %s\n", s.error().message.c_str());
            return 1;
        }
        ingest.push_back(static_cast<double>(kIngestSamples) / seconds(t0, t1));
        exportMBs.push_back(static_cast<double>(fs::file_size(out)) / 1e6 / seconds(t1, t2));
        ingestCpu.push_back(static_cast<double>(kIngestSamples) / (c1 - c0));
        exportCpu.push_back(static_cast<double>(fs::file_size(out)) / 1e6 / (c2 - c1));
        if (r == 0)
            std::printf("profile size: %.1f MB\n", static_cast<double>(fs::file_size(out)) / 1e6);
    }
    std::printf(
        "ingest: %.2f M samples/s wall, %.2f M samples/s per CPU-second (medians of %d runs, %llu "
        "samples, 4 threads, 30-deep)\n",
        median(ingest) / 1e6, median(ingestCpu) / 1e6, kRuns,
        static_cast<unsigned long long>(kIngestSamples));
    std::printf("export: %.0f MB/s wall, %.0f MB/s per CPU-second (medians of %d runs)\n",
                median(exportMBs), median(exportCpu), kRuns);

    std::vector<double> rss1, rss10;
    for (int r = 0; r < 3; ++r) {
        rss1.push_back(static_cast<double>(runRssChild(argv[0], 1'000'000)));
        rss10.push_back(static_cast<double>(runRssChild(argv[0], 10'000'000)));
    }
    std::printf("peak RSS (VmHWM): 1M samples %.1f MiB, 10M samples %.1f MiB, difference %.1f MiB "
                "(medians of 3)\n",
                median(rss1) / 1024, median(rss10) / 1024, (median(rss10) - median(rss1)) / 1024);

    std::vector<double> cancelMs;
    for (int r = 0; r < kRuns; ++r) {
        GeckoCollector collector;
        Workload w;
        w.feed(collector, 4'000'000);
        CancelToken cancel;
        Clock::time_point cancelledAt;
        std::atomic<bool> exporting{false};
        std::thread canceller([&] {
            while (!exporting.load())
                std::this_thread::yield();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            cancelledAt = Clock::now();
            cancel.cancel();
        });
        Status s = collector.exportTo(
            dir->path() / "cancel.json", [&](uint64_t, uint64_t) { exporting = true; }, &cancel);
        const auto returned = Clock::now();
        canceller.join();
        if (s.ok()) {
            std::fprintf(stderr, "export finished before the cancel\n");
            continue;
        }
        cancelMs.push_back(
            std::chrono::duration<double, std::milli>(returned - cancelledAt).count());
    }
    if (!cancelMs.empty())
        std::printf("cancel latency: %.2f ms (median of %zu)\n", median(cancelMs), cancelMs.size());
    return manyThreads(dir->path(), 40000);
}
