// gilscope dump PID [-a] [--json]: prints each thread's current Python stack once,
// as `py-spy dump` does. Without -a only the main thread, as CPython does.
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "core/heatmap/source_text.h"
#include "core/pipeline/stack_pipeline.h"
#include "core/remote/proc_files.h"
#include "core/remote/process_scanner.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "core/util/utf8.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace gilscope::cli {

namespace {

constexpr int kAttempts = 50; // the target runs on: a torn read is retried

std::vector<std::string> statusNames(uint32_t s) {
    std::vector<std::string> names;
    if (s & ThreadStatus::MainThread) names.push_back("main_thread");
    if (s & ThreadStatus::HasGil) names.push_back("has_gil");
    if (s & ThreadStatus::GilRequested) names.push_back("gil_requested");
    if (s & ThreadStatus::OnCpu) names.push_back("on_cpu");
    if (s & ThreadStatus::Unknown) names.push_back("cpu_unknown");
    if (s & ThreadStatus::HasException) names.push_back("has_exception");
    if (!(s & (ThreadStatus::OnCpu | ThreadStatus::Unknown))) names.push_back("idle");
    return names;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

using ThreadNames = std::map<uint64_t, std::string>;

// Each frame's source line, read through the target's own filesystem (/proc/PID/root),
// once per file; "changed" when the file is newer than the process, so the line shown may
// not be the one running.
class SourceLines {
public:
    explicit SourceLines(int pid) : pid_(pid), started_(remote::readStartTime(pid)) {}
    struct Line {
        std::string text; // empty: none to show
        bool changed = false;
    };
    Line at(const std::string& file, int line) {
        if (line <= 0) return {};
        auto it = files_.find(file);
        if (it == files_.end()) {
            File f;
            const heatmap::SourceText src = heatmap::readSource(file, pid_);
            if (src.ok) {
                f.lines = splitLines(src.bytes);
                struct stat st {};
                f.changed = started_ && ::stat(src.readFrom.c_str(), &st) == 0 &&
                            double(st.st_mtime) > *started_;
            }
            it = files_.emplace(file, std::move(f)).first;
        }
        const File& f = it->second;
        if (size_t(line) > f.lines.size()) return {};
        return {f.lines[size_t(line) - 1], f.changed};
    }

private:
    struct File {
        std::vector<std::string> lines; // stripped of their indentation
        bool changed = false;
    };
    static std::vector<std::string> splitLines(const std::string& bytes) {
        std::vector<std::string> out;
        size_t start = 0;
        while (start <= bytes.size()) {
            size_t end = bytes.find('\n', start);
            if (end == std::string::npos) end = bytes.size();
            std::string_view l(bytes.data() + start, end - start);
            while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t'))
                l.remove_suffix(1);
            const size_t indent = l.find_first_not_of(" \t");
            out.emplace_back(indent == std::string_view::npos ? std::string_view()
                                                              : l.substr(indent));
            start = end + 1;
        }
        return out;
    }
    int pid_;
    std::optional<double> started_;
    std::map<std::string, File> files_;
};

// The wait leaf of a stack ("<read TCP 10.0.0.5:5432>"), said apart from the frames: what
// the thread waits on, without its brackets; empty when it is not waiting.
std::string waitingOn(const FrameRegistry& reg, const ThreadStack& t) {
    if (t.frames.empty()) return {};
    const FrameInfo& f = reg.frame(t.frames.front());
    return std::string(waitLabelOfFrame(reg.string(f.filename), reg.string(f.funcname)));
}

const char* kindName(FrameVariable::Kind k) {
    switch (k) {
    case FrameVariable::Kind::Argument:
        return "argument";
    case FrameVariable::Kind::Local:
        return "local";
    case FrameVariable::Kind::Cell:
        return "cell";
    case FrameVariable::Kind::Free:
        return "free";
    }
    return "local";
}

// A frame's variables (dump --locals), or nothing when the frame has none to show.
const FrameLocals* localsOf(const ThreadStack& t, size_t k) {
    return k < t.locals.size() ? &t.locals[k] : nullptr;
}

nlohmann::json localsJson(const FrameLocals& l) {
    nlohmann::json vars = nlohmann::json::array();
    for (const FrameVariable& v : l.variables) {
        nlohmann::json jv{
            {"name", sanitizeUtf8(v.name)},
            {"kind", kindName(v.kind)},
            {"type", v.type.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.type)},
            {"value", sanitizeUtf8(v.value)}};
        if (v.length >= 0) jv["length"] = v.length;
        vars.push_back(std::move(jv));
    }
    return vars;
}

// py-spy's layout: the arguments, then the other variables, one per line.
void printLocals(const FrameLocals& l) {
    if (!l.error.empty()) {
        std::printf("        Locals: <unreadable: %s>\n", escapeForDisplay(l.error).c_str());
        return;
    }
    for (bool arguments : {true, false}) {
        bool header = false;
        for (const FrameVariable& v : l.variables) {
            if ((v.kind == FrameVariable::Kind::Argument) != arguments) continue;
            if (!header) std::printf("        %s:\n", arguments ? "Arguments" : "Locals");
            header = true;
            // A value is escaped already, as Python's repr escapes (value_describer.h).
            std::printf("            %s: %s\n", escapeForDisplay(v.name).c_str(),
                        sanitizeUtf8(v.value).c_str());
        }
    }
}

nlohmann::json toJson(const StackSource& src, const FrameRegistry& reg,
                      const std::vector<ThreadStack>& stacks, size_t count,
                      const ThreadNames& names, const PythonProcessInfo* info) {
    SourceLines sources(src.pid());
    nlohmann::json j;
    j["pid"] = src.pid();
    j["python_version"] = src.pythonVersion().str();
    j["free_threaded"] = src.freeThreaded();
    if (info) {
        j["executable"] = info->executable;
        j["command_line"] = info->commandLine;
    }
    j["threads"] = nlohmann::json::array();
    for (size_t i = 0; i < count; ++i) {
        const ThreadStack& t = stacks[i];
        nlohmann::json frames = nlohmann::json::array();
        const std::string waiting = waitingOn(reg, t);
        for (size_t k = waiting.empty() ? 0 : 1; k < t.frames.size(); ++k) {
            const FrameInfo& f = reg.frame(t.frames[k]);
            nlohmann::json jf{{"function", sanitizeUtf8(reg.string(f.funcname))},
                              {"filename", sanitizeUtf8(reg.string(f.filename))},
                              {"line", f.line},
                              {"end_line", f.endLine},
                              {"column", f.column},
                              {"end_column", f.endColumn}};
            if (f.opcode != kNoOpcode) jf["opcode"] = f.opcode;
            const SourceLines::Line src = sources.at(std::string(reg.string(f.filename)), f.line);
            jf["source"] =
                src.text.empty() ? nlohmann::json(nullptr) : nlohmann::json(sanitizeUtf8(src.text));
            if (!src.text.empty()) jf["source_changed"] = src.changed;
            if (const FrameLocals* l = localsOf(t, k)) {
                jf["locals"] = localsJson(*l);
                if (!l->error.empty()) jf["locals_error"] = l->error;
            }
            frames.push_back(std::move(jf));
        }
        const auto name = names.find(t.threadId);
        j["threads"].push_back(
            {{"thread_id", t.threadId},
             {"name", name != names.end() ? nlohmann::json(sanitizeUtf8(name->second))
                                          : nlohmann::json(nullptr)},
             {"python_thread_id", t.pythonThreadId},
             {"interpreter_id", t.interpreterId},
             {"status", t.status},
             {"flags", statusNames(t.status)},
             {"wait_reason",
              t.status & WaitReasonBits::Mask
                  ? nlohmann::json(std::string(waitReasonName(waitReasonOf(t.status))))
                  : nlohmann::json(nullptr)},
             {"waiting",
              waiting.empty() ? nlohmann::json(nullptr) : nlohmann::json(sanitizeUtf8(waiting))},
             {"frames", std::move(frames)}});
    }
    return j;
}

void printText(const StackSource& src, const FrameRegistry& reg,
               const std::vector<ThreadStack>& stacks, size_t count, const ThreadNames& names,
               const PythonProcessInfo* info) {
    // Names are escaped so that each frame stays on one line whatever its file is called.
    std::printf("Process %d: %s\n", src.pid(),
                info ? escapeForDisplay(info->commandLine).c_str() : "");
    SourceLines sources(src.pid());
    std::printf("Python v%s%s (%s)\n\n", src.pythonVersion().str().c_str(),
                src.freeThreaded() ? ", free-threaded (no GIL)" : "",
                info ? escapeForDisplay(info->executable).c_str() : "");
    for (size_t i = 0; i < count; ++i) {
        const ThreadStack& t = stacks[i];
        const auto name = names.find(t.threadId);
        const std::string quoted =
            name != names.end() ? " \"" + escapeForDisplay(name->second) + "\"" : "";
        std::printf("Thread %llu%s (%s)%s\n", static_cast<unsigned long long>(t.threadId),
                    quoted.c_str(), joined(statusNames(t.status)).c_str(),
                    t.interpreterId ? (" interpreter " + std::to_string(t.interpreterId)).c_str()
                                    : "");
        const std::string waiting = waitingOn(reg, t);
        if (!waiting.empty()) std::printf("  waiting: %s\n", escapeForDisplay(waiting).c_str());
        for (size_t k = waiting.empty() ? 0 : 1; k < t.frames.size(); ++k) {
            const FrameInfo& f = reg.frame(t.frames[k]);
            std::printf("    %s (%s:%d)\n", escapeForDisplay(reg.string(f.funcname)).c_str(),
                        escapeForDisplay(reg.string(f.filename)).c_str(), f.line);
            const SourceLines::Line src = sources.at(std::string(reg.string(f.filename)), f.line);
            if (!src.text.empty())
                std::printf("        %s%s\n", escapeForDisplay(src.text).c_str(),
                            src.changed ? "    (file changed since the program started)" : "");
            if (const FrameLocals* l = localsOf(t, k)) printLocals(*l);
        }
        std::printf("\n");
    }
}

int runDump(const QStringList& args) {
    CommandLine cli("dump", "Print the current Python stack of a running process once.");
    QCommandLineParser& parser = cli.parser();
    const QCommandLineOption all({"a", "all-threads"}, "Show every thread (default: main thread).");
    const QCommandLineOption json("json", "Print JSON instead of text.");
    const QCommandLineOption opcodes("opcodes", "Include the current opcode of each frame.");
    const QCommandLineOption blocking(
        "blocking", "Stop every thread of the target while its stacks are read (ptrace), for a "
                    "consistent snapshot; they run on as soon as it is taken, on every path.");
    const QCommandLineOption locals(
        "locals", "Show each frame's arguments and local variables, read from the target's "
                  "memory without running its code (str and containers shortened).");
    const QCommandLineOption maxDepth(
        "max-depth",
        "Show at most N frames of a stack (default 1536): a deeper one keeps its leaf frames and "
        "root frames around a '<truncated: K frames>' frame.",
        "N", "1536");
    parser.addOptions({all, json, opcodes, locals, blocking, maxDepth});
    parser.addPositionalArgument("pid", "Process ID to read.");
    if (auto done = cli.parse(args)) return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return cli.usageErrorSeeHelp("expected exactly one PID");
    bool ok = false;
    const int pid = positional[0].toInt(&ok);
    if (!ok || pid <= 0)
        return cli.usageError("argument pid: invalid int value: '" + positional[0] + "'");

    ReadOptions options;
    options.allThreads = parser.isSet(all);
    options.opcodes = parser.isSet(opcodes);
    options.locals = parser.isSet(locals);
    options.waitFrames = true; // "waiting: read TCP 10.0.0.5:5432" under the thread's line
    const qulonglong depth = parser.value(maxDepth).toULongLong(&ok);
    if (!ok || depth < 3 || depth > (1u << 20))
        return cli.usageError("argument --max-depth: expected a number of frames from 3 to "
                              "1048576, got '" +
                              parser.value(maxDepth) + "'");
    options.maxDepth = depth;
    ReadPath path;
    path.blocking = parser.isSet(blocking);
    auto pipeline = StackPipeline::open(pid, options, path, 1000);
    if (!pipeline) return fail(pipeline.error());
    StackSource& src = pipeline->reader();
    auto info = inspectProcess(pid);

    std::vector<ThreadStack> stacks;
    size_t count = 0;
    ReadOutcome outcome = ReadOutcome::Error;
    for (int attempt = 0; attempt < kAttempts && outcome == ReadOutcome::Error; ++attempt)
        outcome = src.read(stacks, count);
    if (outcome == ReadOutcome::ProcessEnded)
        return fail(makeError(ErrorKind::ProcessEnded,
                              "process " + std::to_string(pid) + " exited while being read"));
    if (outcome == ReadOutcome::Error)
        return fail(makeError(ErrorKind::Internal, "could not get a consistent stack of process " +
                                                       std::to_string(pid) + " in " +
                                                       std::to_string(kAttempts) + " tries (" +
                                                       src.lastError() + "); try again"));
    const PythonProcessInfo* pinfo = info ? &info.value() : nullptr;
    ThreadNames names;
    for (ThreadName& n : src.threadNamesNow())
        names[n.threadId] = std::move(n.name);
    if (parser.isSet(json))
        std::printf("%s\n", toJson(src, src.registry(), stacks, count, names, pinfo)
                                .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                                .c_str());
    else
        printText(src, src.registry(), stacks, count, names, pinfo);
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(dump, "dump", "Print the Python stacks of a running process once",
                          runDump);

} // namespace gilscope::cli
