#pragma once

#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <memory>

namespace gilscope {

// Attaches (read-only, without stopping it) to a running CPython 3.8-3.15 process.
// Errors carry a message that says what to do:
//   ProcessNotFound    - no such pid
//   NotPython          - the process has no CPython runtime
//   PermissionDenied   - another user's process without CAP_SYS_PTRACE, or Yama
//   UnsupportedVersion - a version or build (e.g. free-threaded) we cannot read
// The returned source's read() reports ReadOutcome::ProcessEnded once the target exits.
Result<std::unique_ptr<StackSource>> openLiveProcess(int pid, const ReadOptions& options);

} // namespace gilscope
