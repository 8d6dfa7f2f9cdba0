#pragma once

#include "core/remote/task_graph.h"
#include "core/sample/frame_registry.h"
#include "core/sample/stack_source.h"

#include <vector>

namespace gilscope::remote {

// Turns tasks into stacks as CPython's profiler does (collector.py, _build_linear_stacks):
// one stack per leaf task (one that no listed task names among its waiters), from its
// coroutine chain up through the tasks awaiting it, each
// task shown as a "<task>" frame named after it over its own chain. A task awaited by
// several picks the lowest address and says "(N parents)". A cycle ends the stack where
// it closes; a waiter that was not read ends it there. Fills out[count ...).
void buildTaskStacks(const std::vector<AsyncTask>& tasks, FrameRegistry& registry,
                     std::vector<ThreadStack>& out, size_t& count);

} // namespace gilscope::remote
