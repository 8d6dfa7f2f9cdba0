#include "app/commands/record_interrupts.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace gilscope::cli {

namespace {

std::atomic<int> g_count{0};
std::atomic<int> g_cancelAt{2}; // the interrupt that cancels
CancelToken g_abort;
struct sigaction g_oldInt, g_oldTerm;

void onInterrupt(int sig) {
    const int n = g_count.fetch_add(1) + 1;
    const int cancelAt = g_cancelAt.load();
    if (n < cancelAt) {
        static const char msg[] =
            "\ngilscope: stopping; writing the output (Ctrl-C again to abort)\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    } else {
        g_abort.cancel();
        if (cancelAt > 1) {
            static const char msg[] = "\ngilscope: aborting; no output will be written\n";
            (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        }
        signal(sig, SIG_DFL); // the next one ends us the ordinary way
    }
}

} // namespace

InterruptGuard::InterruptGuard(FirstInterrupt first) {
    g_cancelAt.store(first == FirstInterrupt::Cancels ? 1 : 2);
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: a sleeping main loop wakes at once
    sigaction(SIGINT, &sa, &g_oldInt);
    sigaction(SIGTERM, &sa, &g_oldTerm);
}

InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &g_oldInt, nullptr);
    sigaction(SIGTERM, &g_oldTerm, nullptr);
}

int InterruptGuard::count() const {
    return g_count.load();
}

const CancelToken& InterruptGuard::abortToken() const {
    return g_abort;
}

} // namespace gilscope::cli
