#include "core/target/proc_dir.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace gilscope::target {

Result<ProcDir> ProcDir::open(int pid) {
    if (pid <= 0)
        return makeError(ErrorKind::ProcessNotFound, "no process with pid " + std::to_string(pid) +
                                                         "; check the pid with 'gilscope ps'");
    const std::string path = "/proc/" + std::to_string(pid);
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) {
        if (errno == ENOENT || errno == ESRCH)
            return makeError(ErrorKind::ProcessNotFound,
                             "no process with pid " + std::to_string(pid) +
                                 " exists (it may have exited); check the pid with 'gilscope ps'");
        return makeError(ErrorKind::PermissionDenied,
                         "cannot open " + path + ": " + std::strerror(errno));
    }
    return ProcDir(pid, std::move(fd));
}

Result<ProcDir> ProcDir::duplicate() const {
    UniqueFd copy(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
    if (!copy) return makeError(ErrorKind::Io, std::string("dup: ") + std::strerror(errno));
    return ProcDir(pid_, std::move(copy));
}

std::optional<std::string> readAll(int fd, size_t limit) {
    std::string out;
    char buf[16384];
    while (out.size() < limit) {
        const ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - out.size()));
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::nullopt;
        }
        if (n == 0) break;
        out.append(buf, size_t(n));
    }
    return out;
}

std::optional<std::string> ProcDir::read(const std::string& name, size_t limit) const {
    UniqueFd f = openAt(name, O_RDONLY);
    if (!f) return std::nullopt;
    return readAll(f.get(), limit);
}

std::optional<std::string> ProcDir::readLink(const std::string& name) const {
    char buf[4096];
    const ssize_t n = ::readlinkat(fd_.get(), name.c_str(), buf, sizeof buf);
    if (n < 0 || size_t(n) >= sizeof buf) return std::nullopt;
    return std::string(buf, size_t(n));
}

UniqueFd ProcDir::openAt(const std::string& name, int flags) const {
    return UniqueFd(::openat(fd_.get(), name.c_str(), flags | O_CLOEXEC));
}

std::vector<int> ProcDir::tasks() const {
    std::vector<int> out;
    UniqueFd dirFd = openAt("task", O_RDONLY | O_DIRECTORY);
    if (!dirFd) return out;
    DIR* dir = ::fdopendir(dirFd.get());
    if (!dir) return out;
    dirFd.release(); // closedir closes it
    while (const dirent* e = ::readdir(dir)) {
        int tid = 0;
        const char* end = e->d_name + std::strlen(e->d_name);
        if (std::from_chars(e->d_name, end, tid).ptr == end && tid > 0) out.push_back(tid);
    }
    ::closedir(dir);
    return out;
}

uint32_t countAllowedCpus(std::string_view status) {
    constexpr std::string_view key = "Cpus_allowed_list:";
    const size_t at = status.find(key);
    if (at == std::string_view::npos) return 0;
    std::string_view list = status.substr(at + key.size());
    list = list.substr(0, list.find('\n'));
    uint64_t total = 0;
    while (!list.empty()) {
        const size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\r'))
            item.remove_suffix(1);
        uint32_t lo = 0, hi = 0;
        const size_t dash = item.find('-');
        const std::string_view a = item.substr(0, dash);
        const std::string_view b = dash == std::string_view::npos ? a : item.substr(dash + 1);
        const auto parse = [](std::string_view text, uint32_t& v) {
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            return ec == std::errc() && end == text.data() + text.size() && !text.empty();
        };
        if (!parse(a, lo) || !parse(b, hi) || hi < lo) return 0;
        total += uint64_t(hi - lo) + 1;
    }
    return total > 65536 ? 0 : uint32_t(total);
}

} // namespace gilscope::target
