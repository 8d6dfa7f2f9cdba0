// Builds a ProfileModel from N synthetic samples shaped like a live recording (8 threads
// sampled on the same ticks at 10 kHz, 20-40 deep stacks drawn from a few hundred
// distinct ones, mixed states) and times the queries the GUI and `report` make.
// Prints medians of several runs.
#include "core/analysis/profile_model.h"
#include "core/analysis/profile_views.h"
#include "core/sample/thread_status.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace gilscope;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

long rssKiB() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    return 0;
}

struct Workload {
    FrameRegistry registry;
    std::vector<std::vector<FrameId>> stacks; // leaf first
};

void makeWorkload(Workload& w) {
    std::mt19937 rng(42);
    std::vector<FrameId> frames;
    for (int i = 0; i < 600; ++i) {
        FrameInfo f;
        f.filename = w.registry.internString("pkg/mod" + std::to_string(i % 40) + ".py");
        f.funcname = w.registry.internString("func" + std::to_string(i / 2));
        f.line = f.endLine = 10 + i % 7;
        frames.push_back(w.registry.internFrame(f));
    }
    // Stacks share roots: each extends a random earlier one's prefix.
    for (int s = 0; s < 400; ++s) {
        std::vector<FrameId> rootFirst;
        if (!w.stacks.empty()) {
            const auto& base = w.stacks[rng() % w.stacks.size()];
            const size_t keep = rng() % base.size();
            rootFirst.assign(base.rbegin(), base.rbegin() + static_cast<long>(keep));
        }
        const size_t depth = 20 + rng() % 21;
        while (rootFirst.size() < depth)
            rootFirst.push_back(frames[rng() % frames.size()]);
        w.stacks.emplace_back(rootFirst.rbegin(), rootFirst.rend());
    }
}

void feed(ProfileModel& m, Workload& w, uint64_t samples) {
    RecordingInfo info;
    info.sampleIntervalUs = 100;
    m.begin(w.registry, info);
    std::mt19937 rng(7);
    const uint32_t states[] = {ThreadStatus::HasGil | ThreadStatus::OnCpu, ThreadStatus::OnCpu,
                               ThreadStatus::GilRequested, 0, ThreadStatus::HasException};
    std::vector<size_t> current(8, 0);
    uint64_t t = 1'000'000;
    for (uint64_t i = 0; i < samples; ++i) {
        const size_t thread = i % 8;
        if (thread == 0) t += 100;
        // A thread keeps its stack for a few ticks, as real code does.
        if (rng() % 4 == 0) current[thread] = rng() % w.stacks.size();
        SampleBatch b;
        b.threadId = 1000 + thread;
        b.status = states[(thread + i / 800) % 5];
        b.frames = w.stacks[current[thread]];
        b.timestampsUs = std::span<const uint64_t>(&t, 1);
        m.addBatch(b);
    }
    m.finish({});
}

double timeQuery(const ProfileModel& m, const ProfileFilter& f, int runs, uint64_t* matched) {
    std::vector<double> v;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        auto r = m.query(f);
        v.push_back(ms(Clock::now() - t0));
        if (!r) {
            std::fprintf(stderr, "query failed: %s\n", r.error().message.c_str());
            std::exit(1);
        }
        *matched = (*r)->matchedSamples;
    }
    return median(v);
}

} // namespace

int main(int argc, char** argv) {
    const uint64_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    Workload w;
    makeWorkload(w);

    std::vector<double> builds, buildsCpu;
    const long rss0 = rssKiB();
    long rssDelta = 0;
    std::unique_ptr<ProfileModel> model;
    for (int run = 0; run < 3; ++run) {
        model = std::make_unique<ProfileModel>();
        const auto t0 = Clock::now();
        const double c0 = threadCpuMs();
        feed(*model, w, samples);
        builds.push_back(ms(Clock::now() - t0));
        buildsCpu.push_back(threadCpuMs() - c0);
        rssDelta = std::max(rssDelta, rssKiB() - rss0);
        if (run < 2) model.reset();
    }
    const double buildMs = median(builds);
    auto all = model->query({});
    std::printf("samples: %llu, stack nodes: %zu, functions: %zu\n",
                static_cast<unsigned long long>(samples), (*all)->nodes.size(),
                (*all)->functions.size());
    const double buildCpu = median(buildsCpu);
    std::printf("build: median %.0f ms wall = %.2f M samples/s; %.0f ms CPU = %.2f M samples/s "
                "(target >= 5; the load on the machine shows as wall > CPU)\n",
                buildMs, samples / buildMs / 1000.0, buildCpu, samples / buildCpu / 1000.0);
    std::printf("RSS growth with the model alive: %.1f MiB (interned stacks: %.1f MiB)\n",
                rssDelta / 1024.0, (*all)->nodes.size() * (sizeof(StackNode) + 40) / 1048576.0);

    const uint64_t origin = (*all)->originUs, last = (*all)->lastUs;
    uint64_t matched = 0;
    struct Case {
        const char* name;
        ProfileFilter filter;
    };
    std::vector<Case> cases;
    cases.push_back({"state on-CPU (counts, no range)", {}});
    cases.back().filter.state = StateFilter::OnCpu;
    ProfileFilter range;
    range.hasRange = true;
    range.startUs = origin + (last - origin) / 4;
    range.endUs = origin + 3 * (last - origin) / 4;
    cases.push_back({"time range, middle half", range});
    ProfileFilter whole = range;
    whole.startUs = 0;
    whole.endUs = UINT64_MAX;
    whole.state = StateFilter::HoldingGil;
    cases.push_back({"state holding-GIL + whole range (full scan)", whole});
    ProfileFilter rangeState = range;
    rangeState.state = StateFilter::OnCpu;
    rangeState.threads = {1000, 1003};
    cases.push_back({"range + on-CPU + 2 threads", rangeState});
    ProfileFilter contention;
    contention.state = StateFilter::GilContention;
    cases.push_back({"GIL contention (two scans)", contention});
    for (const Case& c : cases) {
        const double t = timeQuery(*model, c.filter, 5, &matched);
        std::printf("query %-44s median %7.1f ms  (%llu samples kept)\n", c.name, t,
                    static_cast<unsigned long long>(matched));
    }
    std::vector<double> views;
    for (int i = 0; i < 5; ++i) {
        const auto t0 = Clock::now();
        const auto rows = functionTable(**all);
        const auto td = topDownTree(**all);
        views.push_back(ms(Clock::now() - t0));
    }
    std::printf("function table + top-down tree from a snapshot: median %.1f ms\n", median(views));
    return 0;
}
