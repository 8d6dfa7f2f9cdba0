#include "core/util/thread_names.h"

#include <fstream>

namespace gilscope {
namespace {

std::string readComm(const std::string& path) {
    std::ifstream in(path);
    std::string name;
    if (!in || !std::getline(in, name)) return {};
    return name; // getline dropped the kernel's trailing newline
}

} // namespace

std::string readThreadName(int pid, uint64_t tid) {
    if (pid <= 0 || tid == 0) return {};
    return readComm("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
}

std::string readProcessName(int pid) {
    if (pid <= 0) return {};
    return readComm("/proc/" + std::to_string(pid) + "/comm");
}

} // namespace gilscope
