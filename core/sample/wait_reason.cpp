#include "core/sample/wait_reason.h"

namespace gilscope {

namespace {

struct Names {
    std::string_view name, label;
};

constexpr Names kNames[kWaitReasonCount] = {
    {"none", "Not waiting"},          {"lock", "Lock wait"},      {"io-read", "I/O read"},
    {"io-write", "I/O write"},        {"poll", "Poll"},           {"sleep", "Sleep"},
    {"child", "Child wait"},          {"connect", "Connect"},     {"accept", "Accept"},
    {"syscall", "Other system call"}, {"unknown", "Unknown wait"}};

} // namespace

std::string_view waitReasonName(WaitReason r) {
    const int i = int(r);
    return i < kWaitReasonCount ? kNames[i].name : "unknown";
}

std::string_view waitReasonLabel(WaitReason r) {
    const int i = int(r);
    return i < kWaitReasonCount ? kNames[i].label : "Unknown wait";
}

WaitKind waitKindOf(WaitReason r) {
    switch (r) {
    case WaitReason::None:
        return WaitKind::None;
    case WaitReason::Lock:
        return WaitKind::Lock;
    case WaitReason::IoRead:
    case WaitReason::IoWrite:
    case WaitReason::Connect:
    case WaitReason::Accept:
        return WaitKind::Io;
    case WaitReason::Poll:
        return WaitKind::Poll;
    case WaitReason::Sleep:
        return WaitKind::Sleep;
    case WaitReason::ChildWait:
    case WaitReason::Other:
    case WaitReason::Unknown:
        return WaitKind::Other;
    }
    return WaitKind::Other;
}

} // namespace gilscope
