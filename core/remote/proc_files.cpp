#include "core/remote/proc_files.h"

#include "core/util/proc_stat.h"
#include "core/util/unique_fd.h"
#include "core/util/utf8.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace gilscope::remote {

std::optional<std::string> readProcFile(const std::string& path, size_t limit) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return std::nullopt;
    std::string out;
    char buf[16384];
    while (out.size() < limit) {
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::nullopt;
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    return out;
}

std::optional<std::vector<MapEntry>> readMaps(int pid) {
    auto text = readProcFile("/proc/" + std::to_string(pid) + "/maps");
    if (!text) return std::nullopt;
    return target::parseMaps(*text);
}

std::string readCommandLine(int pid) {
    auto raw = readProcFile("/proc/" + std::to_string(pid) + "/cmdline", 1 << 16);
    if (!raw) return {};
    while (!raw->empty() && raw->back() == '\0')
        raw->pop_back();
    for (char& c : *raw)
        if (c == '\0') c = ' ';
    return sanitizeUtf8(*raw);
}

std::optional<uint32_t> readUid(int pid) {
    auto text = readProcFile("/proc/" + std::to_string(pid) + "/status", 1 << 16);
    if (!text) return std::nullopt;
    return uidFromStatus(*text);
}

std::optional<uint32_t> uidFromStatus(std::string_view text) {
    const size_t at = text.find("\nUid:");
    if (at == std::string::npos) return std::nullopt;
    std::string_view rest = text.substr(at + 5);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
        rest.remove_prefix(1);
    uint32_t uid = 0;
    if (std::from_chars(rest.data(), rest.data() + rest.size(), uid).ec != std::errc{})
        return std::nullopt;
    return uid;
}

namespace {

double clockTicksPerSecond() {
    static const long ticks = ::sysconf(_SC_CLK_TCK);
    return double(ticks > 0 ? ticks : 100);
}

} // namespace

std::optional<double> readStartTime(int pid) {
    auto text = readProcFile("/proc/" + std::to_string(pid) + "/stat", 4096);
    auto stat = readProcFile("/proc/stat", 1 << 16);
    if (!text || !stat) return std::nullopt;
    const auto ticks = procStatField(*text, 22); // starttime, in clock ticks after boot
    const size_t b = stat->find("\nbtime ");
    if (!ticks || b == std::string::npos) return std::nullopt;
    uint64_t boot = 0;
    const char* at = stat->data() + b + 7;
    if (std::from_chars(at, stat->data() + stat->size(), boot).ec != std::errc{})
        return std::nullopt;
    return double(boot) + double(*ticks) / clockTicksPerSecond();
}

std::optional<double> readCpuSeconds(int pid) {
    auto text = readProcFile("/proc/" + std::to_string(pid) + "/stat", 4096);
    if (!text) return std::nullopt;
    const auto user = procStatField(*text, 14), system = procStatField(*text, 15); // utime, stime
    if (!user || !system) return std::nullopt;
    return double(*user + *system) / clockTicksPerSecond();
}

std::string userName(uint32_t uid) {
    struct passwd pw {};
    struct passwd* result = nullptr;
    char buf[4096];
    if (::getpwuid_r(uid, &pw, buf, sizeof buf, &result) == 0 && result)
        return sanitizeUtf8(result->pw_name);
    return std::to_string(uid);
}

bool processExists(int pid) {
    struct stat st {};
    return pid > 0 && ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

std::vector<int> listTasks(int pid) {
    std::vector<int> tids;
    DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
    if (!dir) return tids;
    while (dirent* e = ::readdir(dir)) {
        int tid = 0;
        const char* end = e->d_name + std::char_traits<char>::length(e->d_name);
        if (std::from_chars(e->d_name, end, tid).ptr == end && tid > 0) tids.push_back(tid);
    }
    ::closedir(dir);
    return tids;
}

} // namespace gilscope::remote
