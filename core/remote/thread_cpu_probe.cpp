#include "core/remote/thread_cpu_probe.h"

#include <cstring>

namespace gilscope::remote {

ThreadCpuProbe::State ThreadCpuProbe::state(uint64_t tid) {
    // "pid (comm) S ...": comm may hold spaces and ')', so look after the last ')'.
    // Only the head is needed (pid <= 7 digits, comm <= 15 bytes: the state letter is
    // within 27 bytes, and no later field holds a ')'); a short read copies out less of
    // the record and measured ~25% cheaper (3.4 vs 4.5 µs) than a 512-byte one.
    char buf[64];
    if (files_.readHead(tid, buf, sizeof buf) <= 0) return State::Unknown;
    const char* close = std::strrchr(buf, ')');
    if (!close || close[1] != ' ' || close[2] == '\0') return State::Unknown;
    return close[2] == 'R' ? State::OnCpu : State::Idle;
}

} // namespace gilscope::remote
