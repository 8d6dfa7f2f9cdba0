#include "core/snapshot/process_snapshot.h"

#include "core/gecko/opcode_names.h"
#include "core/pipeline/stack_pipeline.h"
#include "core/remote/process_scanner.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "core/snapshot/source_lines.h"
#include "core/target/attached_process.h"

#include <algorithm>
#include <map>

namespace gilscope {

namespace {

constexpr int kAttempts = 50; // the target runs on: a torn read is retried

// Opens `pid` for one look and takes one consistent read of every stack, or says why there
// is none. The pipeline it returns owns the frames' registry.
Result<StackPipeline> readOnce(const std::shared_ptr<const target::AttachedProcess>& door,
                               const ReadOptions& read, const ReadPath& path,
                               std::vector<ThreadStack>& stacks, size_t& count) {
    const int pid = door->pid();
    auto pipeline = StackPipeline::open(door, read, path, 1000);
    if (!pipeline) return pipeline.error();
    StackSource& src = pipeline->reader();
    ReadOutcome outcome = ReadOutcome::Error;
    for (int attempt = 0; attempt < kAttempts && outcome == ReadOutcome::Error; ++attempt)
        outcome = src.read(stacks, count);
    if (outcome == ReadOutcome::ProcessEnded)
        return makeError(ErrorKind::ProcessEnded,
                         "process " + std::to_string(pid) + " exited while being read");
    if (outcome == ReadOutcome::Error)
        return makeError(ErrorKind::Internal, "could not get a consistent stack of process " +
                                                  std::to_string(pid) + " in " +
                                                  std::to_string(kAttempts) + " tries (" +
                                                  src.why() + "); try again");
    return pipeline;
}

FrameSnapshot frameOf(const FrameInfo& f, const FrameRegistry& reg, int minor,
                      SourceLines& sources) {
    FrameSnapshot fs;
    fs.native = f.native;
    fs.function = reg.string(f.funcname);
    fs.file = reg.string(f.filename);
    fs.line = f.line;
    fs.endLine = f.endLine;
    fs.column = f.column;
    fs.endColumn = f.endColumn;
    if (f.opcode != kNoOpcode) {
        fs.opcode = f.opcode;
        fs.opcodeName = formatOpcode(f.opcode, minor);
    }
    if (f.native) return fs; // no source line: a library's code
    const SourceLines::Line line = sources.at(fs.file, f.line);
    fs.source = line.text;
    fs.sourceChanged = line.changed;
    fs.sourceNote = line.note;
    return fs;
}

// asyncio's tasks (3.14+), read as --async-aware reads them: one stack per leaf task, up
// through the tasks awaiting it, each task's frames closed by a "<task>" frame named after
// it. Split at those frames and merged from the root: the tree. A task already in the tree
// keeps its frames: the running tasks are read first (`running`: from the thread's own
// frames, where a running coroutine's callees are), then every task (`all`: suspended
// coroutine chains, which stop at a running coroutine).
Status readTasks(const std::shared_ptr<const target::AttachedProcess>& door, AsyncMode mode,
                 const SnapshotOptions& options, SourceLines& sources,
                 std::vector<TaskSnapshot>& roots) {
    ReadOptions read;
    read.asyncMode = mode;
    read.opcodes = options.opcodes;
    read.maxDepth = options.maxDepth;
    ReadPath path;
    path.blocking = options.blocking;
    std::vector<ThreadStack> stacks;
    size_t count = 0;
    auto pipeline = readOnce(door, read, path, stacks, count);
    if (!pipeline) return pipeline.error();
    StackSource& src = pipeline->reader();
    const FrameRegistry& reg = src.registry();
    struct Segment {
        std::string name;
        std::vector<FrameId> frames; // newest first
    };
    std::vector<Segment> segments;
    for (size_t i = 0; i < count; ++i) {
        segments.assign(1, {});
        for (FrameId id : stacks[i].frames) {
            const FrameInfo& f = reg.frame(id);
            if (reg.string(f.filename) != "<task>") {
                segments.back().frames.push_back(id);
                continue;
            }
            segments.back().name = reg.string(f.funcname);
            segments.emplace_back();
        }
        segments.pop_back(); // after the root task's frame: nothing
        std::vector<TaskSnapshot>* level = &roots;
        for (auto seg = segments.rbegin(); seg != segments.rend(); ++seg) {
            auto node = std::find_if(level->begin(), level->end(),
                                     [&](const TaskSnapshot& t) { return t.name == seg->name; });
            if (node == level->end()) {
                TaskSnapshot task;
                task.name = seg->name;
                task.threadId = stacks[i].threadId;
                task.running = mode == AsyncMode::Running && seg == segments.rend() - 1;
                for (FrameId id : seg->frames)
                    task.frames.push_back(
                        frameOf(reg.frame(id), reg, src.pythonVersion().minor, sources));
                level->push_back(std::move(task));
                node = level->end() - 1;
            }
            level = &node->awaits;
        }
    }
    return {};
}

} // namespace

std::vector<std::string> threadStatusNames(uint32_t s, bool freeThreaded) {
    std::vector<std::string> names;
    const GilBitWords words = gilBitWords(freeThreaded);
    if (s & ThreadStatus::MainThread) names.push_back("main_thread");
    if (s & ThreadStatus::HasGil) names.push_back(words.heldFlag);
    if (s & ThreadStatus::GilRequested) names.push_back(words.waitingFlag);
    if (s & ThreadStatus::OnCpu) names.push_back("on_cpu");
    if (s & ThreadStatus::Unknown) names.push_back("cpu_unknown");
    if (s & ThreadStatus::HasException) names.push_back("has_exception");
    if (!(s & (ThreadStatus::OnCpu | ThreadStatus::Unknown))) names.push_back("idle");
    return names;
}

Result<ProcessSnapshot> takeSnapshot(int pid, const SnapshotOptions& options) {
    auto door = target::AttachedProcess::open(pid);
    if (!door) return door.error();
    return takeSnapshot(*door, options);
}

Result<ProcessSnapshot> takeSnapshot(const std::shared_ptr<const target::AttachedProcess>& door,
                                     const SnapshotOptions& options) {
    const int pid = door->pid();
    ReadOptions read;
    read.allThreads = options.allThreads;
    read.opcodes = options.opcodes;
    read.locals = options.locals;
    read.waitFrames = true; // what a waiting thread waits on, said apart from its frames
    read.maxDepth = options.maxDepth;
    read.nativeStacks = options.nativeStacks; // the eval-loop entries pair runs with C frames
    ReadPath path;
    path.blocking = options.blocking;
    path.nativeStacks = options.nativeStacks;
    std::vector<ThreadStack> stacks;
    size_t count = 0;
    auto pipeline = readOnce(door, read, path, stacks, count);
    if (!pipeline) return pipeline.error();
    StackSource& src = pipeline->reader();

    ProcessSnapshot snap;
    snap.pid = pid;
    snap.pythonVersion = src.pythonVersion().str();
    snap.freeThreaded = src.freeThreaded();
    if (auto info = inspectProcess(pid)) {
        snap.executable = info->executable;
        snap.commandLine = info->commandLine;
    }
    std::map<uint64_t, std::string> names;
    for (ThreadName& n : src.threadNamesNow())
        names[n.threadId] = std::move(n.name);
    const FrameRegistry& reg = src.registry();
    SourceLines sources(door);
    for (size_t i = 0; i < count; ++i) {
        const ThreadStack& t = stacks[i];
        ThreadSnapshot ts;
        ts.threadId = t.threadId;
        ts.pythonThreadId = t.pythonThreadId;
        ts.interpreterId = t.interpreterId;
        ts.status = t.status;
        if (auto n = names.find(t.threadId); n != names.end()) ts.name = n->second;
        // The wait leaf ("<read TCP 10.0.0.5:5432>") is said apart from the frames: the
        // first Python one (C frames of the blocked call may sit over it).
        size_t waitAt = SIZE_MAX;
        for (size_t k = 0; k < t.frames.size(); ++k) {
            const FrameInfo& leaf = reg.frame(t.frames[k]);
            if (leaf.native) continue;
            ts.waiting = waitLabelOfFrame(reg.string(leaf.filename), reg.string(leaf.funcname));
            if (!ts.waiting.empty()) waitAt = k;
            break;
        }
        // --locals: one entry per frame the Python walk read, in its order. C frames merged
        // in between (--native-stacks) take none, so the Python ones are counted apart.
        size_t python = 0;
        for (size_t k = 0; k < t.frames.size(); ++k) {
            const FrameInfo& info = reg.frame(t.frames[k]);
            const size_t walked = info.native ? SIZE_MAX : python++;
            if (k == waitAt) continue;
            FrameSnapshot fs = frameOf(info, reg, src.pythonVersion().minor, sources);
            if (walked < t.locals.size()) fs.locals = t.locals[walked];
            ts.frames.push_back(std::move(fs));
        }
        snap.threads.push_back(std::move(ts));
    }
    if (options.tasks)
        for (AsyncMode mode : {AsyncMode::Running, AsyncMode::All})
            if (Status s = readTasks(door, mode, options, sources, snap.tasks); !s)
                return s.error();
    return snap;
}

} // namespace gilscope
