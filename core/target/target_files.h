#pragma once

#include "core/common/error.h"
#include "core/target/proc_dir.h"
#include "core/target/process_credentials.h"
#include "core/util/unique_fd.h"

#include <mutex>
#include <string>
#include <string_view>

namespace gilscope::target {

// The target's own files (its sources, the ELF objects it maps), opened as the target
// itself would open them, never as gilscope could:
// - the name is resolved in the target's root (openat2 RESOLVE_IN_ROOT): an absolute
//   symlink or a ".." stays inside it, and /proc magic links are refused;
// - the open runs on a short-lived thread that takes the target's filesystem ids, its
//   groups and only the file capabilities the target holds itself, so the kernel checks
//   the target's rights (where gilscope cannot take them, the file's mode is checked
//   against the target's ids as well);
// - it is looked at (O_PATH, fstat) before it is opened for reading: only a regular file,
//   so a FIFO cannot hang us and a device is never opened.
// There is no fallback to this machine's files.
class TargetFiles {
public:
    // Takes the target's root now; its cwd and credentials are read again at each open
    // while the process lives (through its own handle on `proc`).
    static Result<TargetFiles> open(const ProcDir& proc);

    // Thread-safe.
    Result<UniqueFd> openFile(std::string_view path) const;
    // The whole file, when it is at most maxBytes long.
    Result<std::string> readFile(std::string_view path, size_t maxBytes) const;

    TargetFiles(TargetFiles&& o) noexcept
        : proc_(std::move(o.proc_)), root_(std::move(o.root_)), rootErrno_(o.rootErrno_),
          creds_(std::move(o.creds_)), cwdInRoot_(std::move(o.cwdInRoot_)) {}

private:
    TargetFiles(ProcDir proc, UniqueFd root) : proc_(std::move(proc)), root_(std::move(root)) {}
    // The last credentials and cwd seen, refreshed while the process lives.
    void refresh() const;

    ProcDir proc_;
    UniqueFd root_; // O_PATH, the target's "/"; invalid: it could not be opened
    int rootErrno_ = 0;
    mutable std::mutex mutex_;
    mutable std::optional<ProcessCredentials> creds_;
    mutable std::string cwdInRoot_; // empty: unknown
};

} // namespace gilscope::target
