// Median cost of one full read of a 30-frame main-thread stack (StackSource::read with
// CPU-state probing, as the sampler calls it), under every interpreter present, plus the
// number of syscalls per sample.
//
//   bench_remote_read [samples=20000]
#include "core/remote/live_process_reader.h"
#include "core/remote/live_stack_source.h"
#include "tests/support/python_interpreters.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace gilscope;

namespace {

struct Figures {
    double medianUs = 0, p90Us = 0;
    double vmReadsPerSample = 0;
    size_t frames = 0;
    int errors = 0;
};

bool measure(StackSource& src, int samples, Figures& f) {
    std::vector<ThreadStack> stacks;
    size_t count = 0;
    for (int i = 0; i < 500; ++i)
        src.read(stacks, count); // warm caches
    auto* live = dynamic_cast<remote::LiveProcessReader*>(&src);
    const uint64_t calls0 = live ? live->syscalls() : 0;
    std::vector<double> us;
    us.reserve(size_t(samples));
    for (int i = 0; i < samples; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const ReadOutcome r = src.read(stacks, count);
        const auto t1 = std::chrono::steady_clock::now();
        if (r == ReadOutcome::ProcessEnded) return false;
        if (r != ReadOutcome::Ok) {
            ++f.errors;
            continue;
        }
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        f.frames = stacks[0].frames.size();
    }
    if (us.empty()) return false;
    f.vmReadsPerSample = live ? double(live->syscalls() - calls0) / samples : 0;
    std::sort(us.begin(), us.end());
    f.medianUs = us[us.size() / 2];
    f.p90Us = us[us.size() * 9 / 10];
    return true;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int samples = argc > 1 ? std::max(100, std::atoi(argv[1])) : 20000;
    std::printf("one full read of a 30-frame main-thread stack, %d samples each\n", samples);
    std::printf("%-24s %8s %8s %7s %14s %7s %s\n", "interpreter", "median", "p90", "frames",
                "vm_readv/sample", "errors",
                "(µs; +1 pread of /proc/PID/task/TID/syscall per thread)");
    for (const auto& in : test::findInterpreters()) {
        test::TargetProcess target(in, "deep30.py");
        if (!target.start()) {
            std::printf("%-24s cannot start: %s\n", qPrintable(in.label),
                        qPrintable(target.error()));
            continue;
        }
        for (bool cpu : {true, false}) {
            ReadOptions o;
            o.cpuState = cpu;
            auto src = openLiveProcess(int(target.pid()), o);
            if (!src) {
                std::printf("%-24s %s\n", qPrintable(in.label), src.error().message.c_str());
                break;
            }
            Figures f;
            if (!measure(**src, samples, f)) {
                std::printf("%-24s no successful reads\n", qPrintable(in.label));
                break;
            }
            std::printf("%-24s %8.2f %8.2f %7zu %14.2f %7d %s\n", qPrintable(in.label), f.medianUs,
                        f.p90Us, f.frames, f.vmReadsPerSample, f.errors,
                        cpu ? "" : "(no CPU probe)");
        }
    }
    return 0;
}
