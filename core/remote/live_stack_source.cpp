#include "core/remote/live_stack_source.h"

#include "core/remote/attach_permission.h"
#include "core/remote/live_process_reader.h"
#include "core/remote/proc_files.h"
#include "core/remote/runtime_locator.h"
#include "core/sample/capture_rules.h"
#include "core/target/attached_process.h"

#include <cerrno>
#include <chrono>
#include <thread>

namespace gilscope {

namespace {
constexpr int kStartWaitMs = 2000, kStartPollMs = 10;
} // namespace

Result<std::unique_ptr<StackSource>> openLiveProcess(int pid, const ReadOptions& options) {
    // The door first: the process that has this pid now, which every later read is
    // checked against.
    auto door = target::AttachedProcess::open(pid);
    if (!door) return door.error();
    return openLiveProcess(std::move(*door), options);
}

Result<std::unique_ptr<StackSource>>
openLiveProcess(std::shared_ptr<const target::AttachedProcess> door, const ReadOptions& options) {
    using namespace remote;
    const int pid = door->pid();
    if (!door->stillAttached())
        return makeError(ErrorKind::ProcessEnded, "process " + std::to_string(pid) + " has exited");
    // A zombie has ended; only its /proc entry waits for its parent.
    if (auto stat = door->proc().read("stat", 4096)) {
        const size_t paren = stat->rfind(')');
        if (paren != std::string::npos && paren + 2 < stat->size() &&
            (stat->at(paren + 2) == 'Z' || stat->at(paren + 2) == 'X'))
            return makeError(ErrorKind::ProcessEnded,
                             "process " + std::to_string(pid) +
                                 " has exited (it is a zombie waiting for its parent)");
    }
    auto loc = locateRuntime(*door);
    if (!loc) return loc.error();
    RemoteMemory probe(*door);
    uint64_t word = 0;
    if (!probe.readValue(loc->runtimeAddr, word)) {
        const int err = probe.lastErrno();
        if (err == ESRCH || err == ESTALE) // ESTALE: the pid names another process now
            return makeError(ErrorKind::ProcessEnded,
                             "process " + std::to_string(pid) + " exited before it could be read");
        return makeError(ErrorKind::PermissionDenied, "cannot read the memory of process " +
                                                          std::to_string(pid) + ": " +
                                                          explainAccessFailure(pid, err));
    }
    refineVersionFromMemory(*loc, probe);
    auto layout = resolveLayout(*loc, probe);
    if (!layout) return layout.error();
    if (loc->microKnown) layout->micro = static_cast<uint8_t>(loc->versionHex >> 8);
    const std::string refusal =
        versionRefusal(options.native, options.asyncMode, layout->minor,
                       loc->microKnown ? PythonVersion::fromHex(loc->versionHex).str()
                                       : PythonVersion::fromHex(loc->versionHex).majorMinor());
    if (!refusal.empty()) return makeError(ErrorKind::UnsupportedVersion, refusal);
    auto reader = std::make_unique<LiveProcessReader>(door, options, std::move(*loc), *layout);
    // A process caught while its runtime starts (a --subprocesses child just after its
    // exec; on a busy machine that lasts tens of milliseconds) has no interpreter for a
    // moment: wait for it, a while, rather than fail.
    Status s = reader->init();
    for (int waitedMs = 0; !s && reader->runtimeStarting() && waitedMs < kStartWaitMs;
         waitedMs += kStartPollMs) {
        std::this_thread::sleep_for(std::chrono::milliseconds(kStartPollMs));
        s = reader->init();
    }
    if (!s) return s.error();
    if (options.asyncMode != AsyncMode::Off)
        if (Status s = reader->initAsyncio(); !s) return s.error();
    return std::unique_ptr<StackSource>(std::move(reader));
}

} // namespace gilscope
