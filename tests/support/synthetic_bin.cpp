#include "tests/support/synthetic_bin.h"

#include "core/tach/tach_writer.h"

#include <random>
#include <span>
#include <vector>

namespace gilscope::test {

bool writeSyntheticBin(const std::filesystem::path& path, uint64_t samples) {
    FrameRegistry registry;
    std::vector<FrameId> pool;
    for (int i = 0; i < 2000; ++i) {
        FrameInfo f;
        f.filename = registry.internString("/srv/app/module_" + std::to_string(i % 97) + ".py");
        f.funcname = registry.internString("function_" + std::to_string(i));
        f.line = 10 + i % 500;
        f.endLine = f.line + 1;
        pool.push_back(registry.internFrame(f));
    }
    auto writer = TachWriter::create(path);
    if (!writer) return false;
    RecordingInfo info;
    info.startTimeUs = 1'000'000;
    info.sampleIntervalUs = 100;
    info.mode = 3;
    info.captureFeatures = 5;
    (*writer)->begin(registry, info);
    std::mt19937 rng(12345);
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
    constexpr int kThreads = 8;
    std::vector<size_t> at(kThreads);
    std::vector<bool> gil(kThreads, false);
    uint64_t written = 0, ts = info.startTimeUs;
    while (written < samples) {
        ts += 100;
        for (int t = 0; t < kThreads && written < samples; ++t, ++written) {
            if (rng() % 100 < 15) at[t] = (at[t] + paths.size() + rng() % 7 - 3) % paths.size();
            if (rng() % 100 < 5) gil[t] = !gil[t];
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
    return bool((*writer)->finalize());
}

} // namespace gilscope::test
