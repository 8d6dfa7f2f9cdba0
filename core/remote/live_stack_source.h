#pragma once

#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <memory>

namespace gilscope::target {
class AttachedProcess;
}

namespace gilscope {

// Attaches (read-only, without stopping it) to a running CPython 3.8-3.15 process.
// Errors carry a message that says what to do:
//   ProcessNotFound    - no such pid
//   NotPython          - the process has no CPython runtime
//   PermissionDenied   - another user's process without CAP_SYS_PTRACE, or Yama
//   UnsupportedVersion - a version or build (e.g. free-threaded) we cannot read
// The returned source's read() reports ReadOutcome::ProcessEnded once the target exits.
Result<std::unique_ptr<StackSource>> openLiveProcess(int pid, const ReadOptions& options);
// The same through a door the caller opened (a recording's, for a snapshot of the process
// it records): never another process that got the pid since.
Result<std::unique_ptr<StackSource>>
openLiveProcess(std::shared_ptr<const target::AttachedProcess> door, const ReadOptions& options);

} // namespace gilscope
