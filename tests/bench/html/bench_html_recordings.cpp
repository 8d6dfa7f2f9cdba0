// Writes the two recordings the HTML flame graph benchmark (run_html_bench.sh) measures:
//   big.bin   10M thread-samples, live-like: 8 threads, 3000 call paths 10-60 frames deep
//             over 2000 functions, a thread's stack changing on ~15 % of its samples;
//   wide.bin  100,000 distinct stacks (five levels of ten callees under one root chain),
//             one to a few dozen samples each, ~1M samples.
//
//   bench_html_recordings OUT_DIR [--big N]
#include "core/tach/tach_writer.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

FrameId frame(FrameRegistry& r, const std::string& file, const std::string& func, int line) {
    FrameInfo f;
    f.filename = r.internString(file);
    f.funcname = r.internString(func);
    f.line = line;
    f.endLine = line;
    return r.internFrame(f);
}

// One sample of `frames` (leaf first) on thread `tid` at `ts`.
void sample(TachWriter& w, uint64_t tid, const std::vector<FrameId>& frames, uint64_t ts) {
    SampleBatch b;
    b.threadId = tid;
    b.status = (tid == 1000 ? 32u : 0u) | 3u; // main thread, on CPU with the GIL
    b.frames = frames;
    b.timestampsUs = std::span<const uint64_t>(&ts, 1);
    w.addBatch(b);
}

bool writeBig(const fs::path& path, uint64_t samples) {
    FrameRegistry registry;
    std::vector<FrameId> pool;
    for (int i = 0; i < 2000; ++i)
        pool.push_back(frame(registry, "/srv/app/module_" + std::to_string(i % 97) + ".py",
                             "function_" + std::to_string(i), 10 + i % 500));
    std::mt19937 rng(4242);
    // Call paths derived from earlier ones by a few returns and calls, as a program's are.
    std::vector<std::vector<FrameId>> paths(3000);
    for (int k = 0; k < 30; ++k)
        paths[0].push_back(pool[rng() % pool.size()]);
    for (size_t i = 1; i < paths.size(); ++i) {
        paths[i] = paths[rng() % i];
        for (unsigned n = rng() % 4; n > 0 && paths[i].size() > 10; --n)
            paths[i].erase(paths[i].begin());
        for (unsigned n = rng() % 4; n > 0 && paths[i].size() < 60; --n)
            paths[i].insert(paths[i].begin(), pool[rng() % pool.size()]);
    }
    auto writer = TachWriter::create(path);
    if (!writer) return false;
    RecordingInfo info;
    info.startTimeUs = 1'000'000;
    info.sampleIntervalUs = 1000;
    info.mode = 0; // wall
    info.pythonMajor = 3;
    info.pythonMinor = 15;
    (*writer)->begin(registry, info);
    std::vector<size_t> at(8);
    for (size_t& a : at)
        a = rng() % paths.size();
    uint64_t written = 0, ts = info.startTimeUs;
    while (written < samples) {
        ts += 1000;
        for (size_t t = 0; t < at.size() && written < samples; ++t, ++written) {
            if (rng() % 100 < 15) at[t] = (at[t] + paths.size() + rng() % 7 - 3) % paths.size();
            sample(**writer, 1000 + t, paths[at[t]], ts);
        }
    }
    (*writer)->finish({});
    return (*writer)->finalize().ok();
}

bool writeWide(const fs::path& path) {
    FrameRegistry registry;
    const std::vector<FrameId> root{frame(registry, "/srv/app/main.py", "serve", 40),
                                    frame(registry, "/srv/app/main.py", "<module>", 1)};
    std::vector<std::vector<FrameId>> level(5);
    for (int l = 0; l < 5; ++l)
        for (int i = 0; i < 10; ++i)
            level[l].push_back(frame(registry, "/srv/app/layer" + std::to_string(l) + ".py",
                                     "handler_" + std::to_string(l) + "_" + std::to_string(i),
                                     10 * i + 1));
    auto writer = TachWriter::create(path);
    if (!writer) return false;
    RecordingInfo info;
    info.startTimeUs = 1'000'000;
    info.sampleIntervalUs = 100;
    info.mode = 0;
    info.pythonMajor = 3;
    info.pythonMinor = 15;
    (*writer)->begin(registry, info);
    std::mt19937 rng(99);
    uint64_t ts = info.startTimeUs;
    std::vector<FrameId> frames;
    for (int stack = 0; stack < 100000; ++stack) {
        frames.clear();
        // The stack's five decimal digits pick a callee per level; leaf (level 4) first.
        for (int l = 4, rest = stack; l >= 0; --l, rest /= 10)
            frames.push_back(level[l][rest % 10]);
        frames.insert(frames.end(), root.begin(), root.end());
        const int weight = 1 + int(rng() % 16) + (stack % 97 == 0 ? 200 : 0); // a few hot ones
        for (int k = 0; k < weight; ++k)
            sample(**writer, 1000, frames, ts += 100);
    }
    (*writer)->finish({});
    return (*writer)->finalize().ok();
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_html_recordings OUT_DIR [--big N]\n");
        return 2;
    }
    uint64_t big = 10'000'000;
    if (argc == 4 && std::strcmp(argv[2], "--big") == 0) big = std::strtoull(argv[3], nullptr, 10);
    const fs::path dir = argv[1];
    if (!writeBig(dir / "big.bin", big) || !writeWide(dir / "wide.bin")) {
        std::fprintf(stderr, "bench_html_recordings: cannot write into %s\n", dir.c_str());
        return 1;
    }
    return 0;
}
