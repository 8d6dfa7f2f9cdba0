#include "core/snapshot/snapshot_format.h"

#include "core/sample/wait_reason.h"
#include "core/util/utf8.h"

namespace gilscope {

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

nlohmann::json localsJson(const FrameLocals& l) {
    nlohmann::json vars = nlohmann::json::array();
    for (const FrameVariable& v : l.variables) {
        nlohmann::json jv{
            {"name", sanitizeUtf8(v.name)},
            {"kind", variableKindName(v.kind)},
            {"type", v.type.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.type)},
            {"value", sanitizeUtf8(v.value)}};
        if (v.length >= 0) jv["length"] = v.length;
        vars.push_back(std::move(jv));
    }
    return vars;
}

void appendLocals(std::string& out, const FrameLocals& l) {
    if (!l.error.empty()) {
        out += "        Locals: <unreadable: " + escapeForDisplay(l.error) + ">\n";
        return;
    }
    for (bool arguments : {true, false}) {
        bool header = false;
        for (const FrameVariable& v : l.variables) {
            if ((v.kind == FrameVariable::Kind::Argument) != arguments) continue;
            if (!header) out += arguments ? "        Arguments:\n" : "        Locals:\n";
            header = true;
            // A value is escaped already, as Python's repr escapes (value_describer.h).
            out += "            " + escapeForDisplay(v.name) + ": " + sanitizeUtf8(v.value) + "\n";
        }
    }
}

std::string frameLine(const FrameSnapshot& f) {
    if (f.native) return escapeForDisplay(f.function) + " (" + escapeForDisplay(f.file) + ") [C]";
    return escapeForDisplay(f.function) + " (" + escapeForDisplay(f.file) + ":" +
           std::to_string(f.line) + ")" + (f.opcodeName.empty() ? "" : " [" + f.opcodeName + "]");
}

// A task, its coroutines under it, then the tasks it awaits, one level deeper.
void appendTask(std::string& out, const TaskSnapshot& t, const std::string& indent,
                const char* prefix) {
    out += indent + prefix + "Task \"" + escapeForDisplay(t.name) + "\"" +
           (t.running    ? " (running on thread " + std::to_string(t.threadId) + ")"
            : t.threadId ? " (thread " + std::to_string(t.threadId) + ")"
                         : "") +
           "\n";
    for (const FrameSnapshot& f : t.frames)
        out += indent + "    " + frameLine(f) + "\n";
    for (const TaskSnapshot& awaited : t.awaits)
        appendTask(out, awaited, indent + "    ", "awaits ");
}

nlohmann::json frameJson(const FrameSnapshot& f) {
    nlohmann::json jf{{"function", sanitizeUtf8(f.function)},
                      {"filename", sanitizeUtf8(f.file)},
                      {"line", f.line},
                      {"end_line", f.endLine},
                      {"column", f.column},
                      {"end_column", f.endColumn}};
    if (f.native) jf["native"] = true;
    if (f.opcode >= 0) {
        jf["opcode"] = f.opcode;
        jf["opcode_name"] = f.opcodeName;
    }
    jf["source"] =
        f.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(sanitizeUtf8(f.source));
    if (!f.source.empty()) jf["source_changed"] = f.sourceChanged;
    if (!f.sourceNote.empty()) jf["source_note"] = sanitizeUtf8(f.sourceNote);
    if (f.locals) {
        jf["locals"] = localsJson(*f.locals);
        if (!f.locals->error.empty()) jf["locals_error"] = f.locals->error;
    }
    return jf;
}

nlohmann::json taskJson(const TaskSnapshot& t) {
    nlohmann::json frames = nlohmann::json::array(), awaits = nlohmann::json::array();
    for (const FrameSnapshot& f : t.frames)
        frames.push_back(frameJson(f));
    for (const TaskSnapshot& a : t.awaits)
        awaits.push_back(taskJson(a));
    return {{"name", sanitizeUtf8(t.name)},
            {"thread_id", t.threadId},
            {"running", t.running},
            {"frames", std::move(frames)},
            {"awaits", std::move(awaits)}};
}

} // namespace

const char* variableKindName(FrameVariable::Kind k) {
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

std::string snapshotText(const ProcessSnapshot& s) {
    std::string out = "Process " + std::to_string(s.pid) + ": " +
                      escapeForDisplay(s.commandLine.value_or("")) + "\n";
    out += "Python v" + s.pythonVersion + (s.freeThreaded ? ", free-threaded (no GIL)" : "") +
           " (" + escapeForDisplay(s.executable.value_or("")) + ")\n\n";
    for (const ThreadSnapshot& t : s.threads) {
        out += "Thread " + std::to_string(t.threadId) +
               (t.name ? " \"" + escapeForDisplay(*t.name) + "\"" : "") + " (" +
               joined(threadStatusNames(t.status, s.freeThreaded)) + ")" +
               (t.interpreterId ? " interpreter " + std::to_string(t.interpreterId) : "") + "\n";
        if (!t.waiting.empty()) out += "  waiting: " + escapeForDisplay(t.waiting) + "\n";
        for (const FrameSnapshot& f : t.frames) {
            out += "    " + frameLine(f) + "\n";
            if (!f.source.empty())
                out += "        " + escapeForDisplay(f.source) +
                       (f.sourceChanged ? "    (file changed since the program started)" : "") +
                       "\n";
            else if (!f.sourceNote.empty())
                out += "        (" + escapeForDisplay(f.sourceNote) + ")\n";
            if (f.locals) appendLocals(out, *f.locals);
        }
        out += "\n";
    }
    if (!s.tasks.empty()) out += "asyncio tasks (each under the task that awaits it):\n";
    for (const TaskSnapshot& t : s.tasks)
        appendTask(out, t, "", "");
    return out;
}

nlohmann::json snapshotJson(const ProcessSnapshot& s) {
    nlohmann::json j;
    j["pid"] = s.pid;
    j["python_version"] = s.pythonVersion;
    j["free_threaded"] = s.freeThreaded;
    if (s.executable) j["executable"] = *s.executable;
    if (s.commandLine) j["command_line"] = *s.commandLine;
    j["threads"] = nlohmann::json::array();
    for (const ThreadSnapshot& t : s.threads) {
        nlohmann::json frames = nlohmann::json::array();
        for (const FrameSnapshot& f : t.frames)
            frames.push_back(frameJson(f));
        j["threads"].push_back(
            {{"thread_id", t.threadId},
             {"name", t.name ? nlohmann::json(sanitizeUtf8(*t.name)) : nlohmann::json(nullptr)},
             {"python_thread_id", t.pythonThreadId},
             {"interpreter_id", t.interpreterId},
             {"status", t.status},
             {"flags", threadStatusNames(t.status, s.freeThreaded)},
             {"wait_reason",
              t.status & WaitReasonBits::Mask
                  ? nlohmann::json(std::string(waitReasonName(waitReasonOf(t.status))))
                  : nlohmann::json(nullptr)},
             {"waiting", t.waiting.empty() ? nlohmann::json(nullptr)
                                           : nlohmann::json(sanitizeUtf8(t.waiting))},
             {"frames", std::move(frames)}});
    }
    if (!s.tasks.empty()) {
        j["tasks"] = nlohmann::json::array();
        for (const TaskSnapshot& t : s.tasks)
            j["tasks"].push_back(taskJson(t));
    }
    return j;
}

Result<std::string> snapshotLine(const std::shared_ptr<const target::AttachedProcess>& door) {
    SnapshotOptions whole;
    whole.locals = true;
    auto snap = takeSnapshot(door, whole);
    if (!snap) return snap.error();
    return snapshotJson(*snap).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace gilscope
