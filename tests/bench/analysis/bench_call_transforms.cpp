// Call-tree transforms on a large recording: N thread-samples (default 5M) shaped like a
// recursive visitor in a web stack (8 threads, ~20k distinct stacks, 20-200 frames deep,
// visit/generic_visit towers, frames from installed packages). Times the query the views
// make, then each transform applied to its result, and three at once, as the window runs
// them off the GUI thread (target: <= 300 ms). Prints medians of 5 runs.
//   build/release/tests/bench/analysis/bench_call_transforms [samples]
#include "core/analysis/call_transforms.h"
#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace gilscope;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <typename Fn>
double timed(Fn&& fn, int runs = 5) {
    std::vector<double> v;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        fn();
        v.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return median(v);
}

} // namespace

int main(int argc, char** argv) {
    const uint64_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5'000'000;
    FrameRegistry registry;
    std::mt19937 rng(42);
    auto frame = [&](const std::string& file, const std::string& func, int line) {
        FrameInfo f;
        f.filename = registry.internString(file);
        f.funcname = registry.internString(func);
        f.line = f.endLine = line;
        return registry.internFrame(f);
    };
    const std::string site = "/venv/lib/python3.12/site-packages/";
    std::vector<FrameId> framework, app;
    for (int i = 0; i < 300; ++i)
        framework.push_back(frame(site + "django/mod" + std::to_string(i % 30) + ".py",
                                  "dj_func" + std::to_string(i), 10 + i % 9));
    for (int i = 0; i < 300; ++i)
        app.push_back(
            frame("/srv/app/m" + std::to_string(i % 20) + ".py", "app" + std::to_string(i), 5));
    const FrameId visit = frame("/usr/lib/python3.12/ast.py", "NodeVisitor.visit", 418);
    const FrameId generic = frame("/usr/lib/python3.12/ast.py", "NodeVisitor.generic_visit", 426);
    const FrameId wrapper = frame("/srv/app/deco.py", "traced.<locals>.wrapper", 7);

    // Stacks, root first: a framework prefix, app code through a decorator, sometimes a
    // visitor tower, then app leaves.
    std::vector<std::vector<FrameId>> stacks;
    for (int s = 0; s < 20000; ++s) {
        std::vector<FrameId> root;
        for (int d = 0, n = 8 + int(rng() % 12); d < n; ++d)
            root.push_back(framework[(s % 7) * 40 + d * 3 + rng() % 3]);
        for (int d = 0, n = 2 + int(rng() % 6); d < n; ++d) {
            root.push_back(wrapper);
            root.push_back(app[rng() % app.size()]);
        }
        if (rng() % 2)
            for (int d = 0, n = int(rng() % 80); d < n; ++d) {
                root.push_back(visit);
                root.push_back(generic);
            }
        root.push_back(app[rng() % app.size()]);
        stacks.emplace_back(root.rbegin(), root.rend()); // leaf first
    }

    ProfileModel model;
    RecordingInfo info;
    info.sampleIntervalUs = 100;
    model.begin(registry, info);
    std::vector<size_t> current(8, 0);
    uint64_t t = 1'000'000;
    for (uint64_t i = 0; i < samples; ++i) {
        const size_t thread = i % 8;
        if (thread == 0) t += 100;
        if (rng() % 4 == 0) current[thread] = rng() % stacks.size();
        SampleBatch b;
        b.threadId = 1000 + thread;
        b.status = ThreadStatus::HasGil | ThreadStatus::OnCpu;
        b.frames = stacks[current[thread]];
        b.timestampsUs = std::span<const uint64_t>(&t, 1);
        model.addBatch(b);
    }
    model.finish({});

    std::shared_ptr<const ProfileSnapshot> snap;
    const double query = timed([&] { snap = model.query({}).value(); });
    std::printf("%llu thread-samples, %zu stack nodes, %zu functions\n",
                static_cast<unsigned long long>(samples), snap->nodes.size(),
                snap->functions.size());
    std::printf("  query (no transform)                  %8.1f ms\n", query);

    const CallTransform merge{TransformKind::MergeFunction, {"wrapper", ""}, {}, {}};
    const CallTransform recursion{TransformKind::CollapseRecursion, {}, {}, {}};
    const CallTransform recursionOfVisit{
        TransformKind::CollapseRecursion, {"NodeVisitor.visit", ""}, {}, {}};
    const CallTransform thirdParty{TransformKind::CollapseThirdParty, {}, {}, {}};
    const CallTransform focus{TransformKind::FocusFunction, {"NodeVisitor.visit", ""}, {}, {}};
    const CallTransform drop{TransformKind::DropFunction, {"NodeVisitor.visit", ""}, {}, {}};
    const CallTransform invert{TransformKind::Invert, {}, {}, {}};
    const std::pair<const char*, TransformStack> cases[] = {
        {"merge wrapper", {merge}},
        {"collapse recursion (every function)", {recursion}},
        {"collapse recursion of visit", {recursionOfVisit}},
        {"collapse third-party packages", {thirdParty}},
        {"focus on visit", {focus}},
        {"drop visit", {drop}},
        {"invert", {invert}},
        {"merge + collapse recursion + collapse", {merge, recursion, thirdParty}},
    };
    double worst = 0;
    for (const auto& [name, stack] : cases) {
        std::shared_ptr<const ProfileSnapshot> out;
        const double ms = timed([&] { out = applyTransforms(snap, stack).value(); });
        std::printf("  %-38s %8.1f ms (%zu nodes after)\n", name, ms, out->nodes.size());
        worst = std::max(worst, ms);
    }
    const double both = timed([&] {
        applyTransforms(model.query({}).value(), {merge, recursion, thirdParty});
    });
    std::printf("query + three transforms: %.1f ms (target <= 300 ms); slowest transform %.1f ms\n",
                both, worst);
    return 0;
}
