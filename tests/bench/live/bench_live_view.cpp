// Missed samples of `attach --live` against the same recording without it (issue 19: the
// live view costs the sampler nothing). Records tests/targets/eight_threads.py (4
// spinning, 4 sleeping threads) at 10 kHz, all threads, into collapsed stacks as the CLI
// does, and measures the missed-tick share over a window once sampling has settled:
//   none   the collapsed writer alone;
//   live   plus --live: its ProfileModel as one more sink, and the ncurses view drawing
//          the table once a second on a pseudo-terminal of this benchmark's own;
//   keys   the same, with a key pressed every 50 ms (each one re-queries the model).
// Runs alternate between the cases; prints the median over the runs of each.
//
//   build/release/tests/bench/live/bench_live_view [--runs 5] [--seconds 5]
#include "core/analysis/profile_model.h"
#include "core/collapsed/collapsed_writer.h"
#include "core/remote/live_stack_source.h"
#include "core/sample/tee_sink.h"
#include "core/sampler/recording.h"
#include "tests/support/python_interpreters.h"
#include "tui/live_view.h"

#include <QCoreApplication>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <clocale>
#include <cstdio>
#include <optional>
#include <poll.h>
#include <pty.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace gilscope;

namespace {

enum class Case { None, Live, Keys };

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// The view's terminal: a pty whose slave is our stdin and stdout while it lives, and a
// thread that reads what the view draws (as a terminal would) and types the keys.
class Terminal {
public:
    explicit Terminal(bool typeKeys) {
        winsize size{40, 120, 0, 0};
        if (::openpty(&master_, &slave_, nullptr, nullptr, &size) != 0) return;
        savedIn_ = ::dup(STDIN_FILENO);
        savedOut_ = ::dup(STDOUT_FILENO);
        ::dup2(slave_, STDIN_FILENO);
        ::dup2(slave_, STDOUT_FILENO);
        reader_ = std::thread([this, typeKeys] {
            char buf[65536];
            auto last = std::chrono::steady_clock::now();
            while (!stop_) {
                pollfd p{master_, POLLIN, 0};
                if (::poll(&p, 1, 20) > 0 && ::read(master_, buf, sizeof buf) <= 0) break;
                const auto now = std::chrono::steady_clock::now();
                if (typeKeys && now - last >= std::chrono::milliseconds(50)) {
                    static const char keys[] = "stfp";
                    (void)!::write(master_, &keys[keyIndex_++ % 4], 1);
                    last = now;
                }
            }
        });
    }
    ~Terminal() {
        std::fflush(stdout);
        restore(savedIn_, STDIN_FILENO);
        restore(savedOut_, STDOUT_FILENO);
        stop_ = true;
        if (reader_.joinable()) reader_.join();
        if (master_ >= 0) ::close(master_);
        if (slave_ >= 0) ::close(slave_);
    }
    bool ok() const { return savedOut_ >= 0; }

private:
    static void restore(int saved, int fd) {
        if (saved < 0) return;
        ::dup2(saved, fd);
        ::close(saved);
    }
    int master_ = -1, slave_ = -1, savedIn_ = -1, savedOut_ = -1;
    unsigned keyIndex_ = 0;
    std::atomic<bool> stop_{false};
    std::thread reader_;
};

std::optional<double> measure(int pid, Case c, int seconds) {
    ReadOptions read;
    read.allThreads = true;
    auto source = openLiveProcess(pid, read);
    if (!source) {
        std::fprintf(stderr, "bench: %s\n", source.error().message.c_str());
        return std::nullopt;
    }
    CollapsedWriter collapsed;
    ProfileModel model;
    TeeSink tee;
    tee.add(&collapsed);
    if (c != Case::None) tee.add(&model);
    SamplerOptions options;
    options.intervalUs = 100; // 10 kHz
    options.read = read;
    std::optional<Terminal> terminal;
    std::optional<tui::LiveView> view;
    Recording recording(**source, tee, options);
    recording.start();
    if (c != Case::None) {
        terminal.emplace(c == Case::Keys);
        if (!terminal->ok()) return std::nullopt;
        view.emplace(model, tui::LiveFacts{"PID " + std::to_string(pid), 0, 0});
        view->start();
    }
    std::this_thread::sleep_for(std::chrono::seconds(1)); // attach settles, caches fill
    const SamplerStats before = recording.stats();
    for (int i = 0; i < seconds * 20; ++i) { // the CLI's loop: stats to the view at 20 Hz
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (view) view->publishStats(recording.stats());
    }
    const SamplerStats after = recording.stats();
    recording.requestStop();
    recording.finish();
    if (view) view->stop();
    terminal.reset();
    const uint64_t ticks = (after.okTicks + after.errors) - (before.okTicks + before.errors);
    const uint64_t missed = after.missed - before.missed;
    if (ticks == 0) return std::nullopt;
    return 100.0 * double(missed) / double(ticks + missed);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    std::setlocale(LC_ALL, "");
    int runs = 5, seconds = 5;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--runs")) runs = args[i + 1].toInt();
        if (args[i] == QLatin1String("--seconds")) seconds = args[i + 1].toInt();
    }
    const auto pythons = test::findInterpreters(8, 13);
    if (pythons.isEmpty()) {
        std::fprintf(stderr, "bench: no host Python 3.8-3.13\n");
        return 1;
    }
    test::TargetProcess target(pythons.last(), QStringLiteral("eight_threads.py"));
    if (!target.start()) {
        std::fprintf(stderr, "bench: %s\n", qPrintable(target.error()));
        return 1;
    }
    std::printf("%s, eight_threads.py at 10 kHz, all threads, %d s a run, %d runs\n",
                qPrintable(pythons.last().label), seconds, runs);
    std::fflush(stdout);
    const struct {
        const char* name;
        Case c;
    } cases[] = {{"none", Case::None}, {"live", Case::Live}, {"keys", Case::Keys}};
    std::vector<std::vector<double>> missed(std::size(cases));
    for (int run = 0; run < runs; ++run)
        for (size_t c = 0; c < std::size(cases); ++c) {
            const auto m = measure(int(target.pid()), cases[c].c, seconds);
            if (!m) return 1;
            missed[c].push_back(*m);
        }
    for (size_t c = 0; c < std::size(cases); ++c) {
        std::printf("%-5s missed median %5.2f %%; runs:", cases[c].name, median(missed[c]));
        for (double m : missed[c])
            std::printf(" %.2f", m);
        std::printf("\n");
    }
    return 0;
}
