#include "tui/live_view.h"
#include "core/util/guarded_thread.h"

#include "tui/live_screen.h"
#include "tui/live_table.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace gilscope::tui {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kRefresh = std::chrono::seconds(1);

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// What the keys chose, and the table they give.
struct ViewState {
    SortKey sort = SortKey::Own;
    StateFilter state = StateFilter::All;
    int thread = -1; // index into threads; -1: all
    bool paused = false;
    std::vector<ProfileThread> threads;
    std::shared_ptr<const ProfileSnapshot> snapshot;
    LiveTable table;
    std::string queryError;
};

} // namespace

LiveView::LiveView(const ProfileModel& model, LiveFacts facts)
    : model_(model), facts_(std::move(facts)) {
}

LiveView::~LiveView() {
    stop();
}

Status LiveView::canRun() {
    if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO))
        return makeError(ErrorKind::BadArguments,
                         "--live needs a terminal on standard input and output");
    return {};
}

void LiveView::start() {
    thread_ = std::jthread(
        guardedThreadBody("the live view", [this](std::stop_token stop) { run(stop); }));
}

std::string LiveView::failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
}

void LiveView::publishStats(const SamplerStats& stats) {
    std::lock_guard lock(mutex_);
    stats_ = stats;
}

void LiveView::setFinished(const std::string& why) {
    std::lock_guard lock(mutex_);
    finished_ = why;
}

void LiveView::stop() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    thread_.join();
}

void LiveView::run(std::stop_token stop) {
    SCREEN* screen = newterm(nullptr, stdout, stdin); // unlike initscr, never exits
    if (!screen) {
        std::lock_guard lock(mutex_);
        failure_ = "--live: the terminal (TERM) cannot be used by ncurses";
        quit_ = true;
        return;
    }
    cbreak(); // Ctrl-C still interrupts, as it does without --live
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(100); // keys answer within 0.1 s; the table refreshes once a second

    ViewState v;
    Clock::time_point lastQuery{};
    bool requery = true;
    bool resort = false;
    std::string lastFinished;
    while (!stop.stop_requested()) {
        bool redraw = false;
        switch (const int ch = getch()) {
        case 'q':
        case 'Q':
            quit_ = true;
            redraw = true;
            break;
        case 's':
            v.sort = nextSort(v.sort);
            resort = true;
            break;
        case 't':
            v.thread = v.thread + 1 >= int(v.threads.size()) ? -1 : v.thread + 1;
            requery = true;
            break;
        case 'f':
            v.state = nextState(v.state);
            requery = true;
            break;
        case 'p':
        case 'P':
            v.paused = !v.paused;
            redraw = true;
            break;
        case KEY_RESIZE: // ncurses has taken the new size already
            redraw = true;
            break;
        default:
            (void)ch;
        }
        if (requery || (!v.paused && Clock::now() - lastQuery >= kRefresh)) {
            ProfileFilter filter;
            filter.state = v.state;
            if (v.thread >= 0 && v.thread < int(v.threads.size()))
                filter.threads = {v.threads[size_t(v.thread)].threadId};
            auto snapshot = model_.query(filter);
            lastQuery = Clock::now();
            if (snapshot) {
                v.snapshot = *snapshot;
                v.threads = threadsBySamples(*v.snapshot);
                v.queryError.clear();
            } else {
                v.queryError = snapshot.error().message;
            }
            requery = false;
            resort = true;
        }
        if (resort && v.snapshot) {
            v.table = buildLiveTable(*v.snapshot, v.sort);
            resort = false;
            redraw = true;
        }
        std::string finished;
        SamplerStats stats;
        {
            std::lock_guard lock(mutex_);
            finished = finished_;
            stats = stats_;
        }
        if (finished != lastFinished) {
            lastFinished = finished;
            redraw = true;
        }
        if (!redraw) continue;

        LiveFrame frame;
        frame.status = "gilscope live  " + facts_.target + "  " + fixed(stats.elapsedSec, 1) +
                       " s  " + std::to_string(v.table.recorded) + " samples  " +
                       fixed(stats.achievedRateLastSecond, 0) + " Hz  missed " +
                       fixed(stats.missedPct, 1) + "%  errors " + fixed(stats.errorPct, 1) + "%";
        const std::string threads = v.thread >= 0 && v.thread < int(v.threads.size())
                                        ? threadLabel(v.threads[size_t(v.thread)]) + " (" +
                                              std::to_string(v.thread + 1) + "/" +
                                              std::to_string(v.threads.size()) + ")"
                                        : "all " + std::to_string(v.threads.size());
        frame.choices =
            "[s]ort: " + std::string(sortName(v.sort)) + "  [t]hreads: " + threads +
            "  [f] state: " + std::string(stateFilterLabel(v.state, facts_.freeThreaded)) +
            "  [p]ause" + (v.paused ? " (PAUSED)" : "") + "  [q]uit";
        const std::string unavailable =
            stateFilterUnavailable(v.state, facts_.mode, facts_.pythonMinor, facts_.freeThreaded);
        if (quit_)
            frame.note = "Stopping the recording...";
        else if (!finished.empty())
            frame.note = "Recording ended: " + finished + ". Press q to quit.";
        else if (!v.queryError.empty())
            frame.note = v.queryError;
        else if (!unavailable.empty())
            frame.note = unavailable;
        else if (v.state != StateFilter::All || v.thread >= 0)
            frame.note = std::to_string(v.table.matched) + " of " +
                         std::to_string(v.table.recorded) + " thread-samples kept";
        frame.empty = v.table.recorded == 0  ? "no samples yet"
                      : !unavailable.empty() ? unavailable
                                             : "none of the " + std::to_string(v.table.recorded) +
                                                   " thread-samples is in this state or thread";
        frame.table = &v.table;
        drawLiveFrame(frame);
    }
    endwin();
    delscreen(screen);
}

} // namespace gilscope::tui
