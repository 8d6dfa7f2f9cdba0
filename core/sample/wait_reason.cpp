#include "core/sample/wait_reason.h"

#include "core/sample/frame_registry.h"

#include <iterator>

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

std::string waitFrameName(WaitReason reason, std::string_view callName, long nr,
                          std::string_view target) {
    auto with = [&](std::string_view verb) {
        return target.empty() ? "<" + std::string(verb) + ">"
                              : "<" + std::string(verb) + " " + std::string(target) + ">";
    };
    switch (reason) {
    case WaitReason::Lock:
        return "<lock wait>";
    case WaitReason::IoRead:
        return with("read");
    case WaitReason::IoWrite:
        return with("write");
    case WaitReason::Connect:
        return with("connect");
    case WaitReason::Accept:
        return with("accept");
    case WaitReason::Poll:
        return "<poll>";
    case WaitReason::Sleep:
        return "<sleep>";
    case WaitReason::ChildWait:
        return "<child wait>";
    case WaitReason::Other:
        if (!callName.empty()) return "<syscall " + std::string(callName) + ">";
        return nr < 0 ? std::string("<stopped>") : "<syscall " + std::to_string(nr) + ">";
    case WaitReason::None:
    case WaitReason::Unknown:
        break;
    }
    return "<unknown wait>";
}

std::optional<WaitReason> waitReasonOfFrame(std::string_view file, std::string_view name) {
    if (file != kPseudoFrameFile || !name.starts_with('<') || !name.ends_with('>'))
        return std::nullopt;
    name = name.substr(1, name.size() - 2);
    const auto verb = [&](std::string_view v) {
        return name == v ||
               (name.starts_with(v) && name.size() > v.size() && name[v.size()] == ' ');
    };
    if (name == "lock wait") return WaitReason::Lock;
    if (verb("read")) return WaitReason::IoRead;
    if (verb("write")) return WaitReason::IoWrite;
    if (verb("connect")) return WaitReason::Connect;
    if (verb("accept")) return WaitReason::Accept;
    if (name == "poll") return WaitReason::Poll;
    if (name == "sleep") return WaitReason::Sleep;
    if (name == "child wait") return WaitReason::ChildWait;
    if (verb("syscall") || name == "stopped") return WaitReason::Other;
    if (name == "unknown wait") return WaitReason::Unknown;
    return std::nullopt;
}

std::string_view waitLabelOfFrame(std::string_view file, std::string_view name) {
    if (!waitReasonOfFrame(file, name)) return {};
    return name.substr(1, name.size() - 2);
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

uint8_t compactStatus(uint32_t status) {
    return uint8_t((status & 0x1Fu) | uint32_t(waitKindOf(waitReasonOf(status))) << 5);
}

uint32_t expandStatus(uint8_t compact) {
    static constexpr WaitReason kOfKind[] = {WaitReason::None,   WaitReason::Lock,
                                             WaitReason::IoRead, WaitReason::Poll,
                                             WaitReason::Sleep,  WaitReason::Other};
    const uint32_t kind = compact >> 5;
    return withWaitReason(compact & 0x1Fu,
                          kind < std::size(kOfKind) ? kOfKind[kind] : WaitReason::Unknown);
}

} // namespace gilscope
