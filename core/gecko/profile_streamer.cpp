#include "core/gecko/profile_streamer.h"

#include "core/gecko/gecko_counters.h"
#include "core/gecko/opcode_names.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace gilscope {

namespace {

constexpr uint64_t kPollMask = 4095; // poll() every 4096 items

template <typename T>
T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

} // namespace

ProfileStreamer::ProfileStreamer(GeckoCollector::Impl& impl, JsonWriter& out,
                                 const ProgressCallback& progress, const CancelToken* cancel,
                                 std::string pid, std::string abi, std::string platform, int cpus)
    : impl_(impl), out_(out), progress_(progress), cancel_(cancel), pid_(std::move(pid)),
      abi_(std::move(abi)), platform_(std::move(platform)), cpus_(cpus) {
    total_ = impl_.strings.size();
    for (auto& th : impl_.threads)
        total_ += 2 * th->sampleCount() + 6 * th->markerCount(); // values of spilled columns
}

OpcodeInfo ProfileStreamer::opcodeInfo(uint32_t opcode) const {
    return gilscope::opcodeInfo(opcode, impl_.pythonMinor);
}

std::string ProfileStreamer::formatOpcode(uint32_t opcode) const {
    return gilscope::formatOpcode(opcode, impl_.pythonMinor);
}

Status ProfileStreamer::poll() {
    if (cancel_ && cancel_->cancelled())
        return makeError(ErrorKind::Cancelled, "Gecko export cancelled");
    if (progress_) progress_(done_, total_);
    return out_.status();
}

Status ProfileStreamer::itemDone(bool counted) {
    done_ += counted;
    return (++items_ & kPollMask) == 0 ? poll() : Status();
}

Status ProfileStreamer::checkCount(uint64_t count, uint64_t expected, const char* label) {
    if (count == expected) return {};
    return makeError(ErrorKind::Internal, "streamed " + std::to_string(count) + " " + label +
                                              " items, expected " + std::to_string(expected) +
                                              "; the profile was not written");
}

template <typename T, typename Fn>
Status ProfileStreamer::spilled(JsonObject& parent, const char* name, const SpillColumn& col,
                                uint64_t expected, Fn&& write) {
    auto reader = SpillReader::open(col);
    if (!reader.ok()) return reader.error();
    JsonArray array(parent.key(name));
    while (const char* rec = reader->next()) {
        array.item();
        write(load<T>(rec));
        if (Status s = itemDone(true); !s.ok()) return s;
    }
    if (!reader->status().ok()) return reader->status();
    return checkCount(array.size(), expected, name);
}

template <typename Vec, typename Fn>
Status ProfileStreamer::column(JsonObject& parent, const char* name, const Vec& values,
                               uint64_t expected, Fn&& write) {
    JsonArray array(parent.key(name));
    for (const auto& v : values) {
        array.item();
        write(v);
        if (Status s = itemDone(false); !s.ok()) return s;
    }
    return checkCount(array.size(), expected, name);
}

Status ProfileStreamer::repeated(JsonObject& parent, const char* name, uint64_t count,
                                 std::string_view value) {
    JsonArray array(parent.key(name));
    if (count == 0) return {};
    array.item().raw(value);
    // The other count - 1 copies in runs of ",value", one poll per run.
    const uint64_t runItems = kPollMask + 1;
    std::string run;
    for (uint64_t i = 0; i < std::min(count - 1, runItems); ++i) {
        run += ',';
        run += value;
    }
    for (uint64_t left = count - 1; left > 0;) {
        const uint64_t n = std::min(left, runItems);
        out_.raw(std::string_view(run).substr(0, n * (value.size() + 1)));
        left -= n;
        items_ += n;
        if (Status s = poll(); !s.ok()) return s;
    }
    return {};
}

Status ProfileStreamer::run() {
    {
        JsonObject root(out_);
        root.key("meta");
        if (Status s = meta(); !s.ok()) return s;
        libs(root.key("libs"));
        {
            JsonArray threads(root.key("threads"));
            for (auto& th : impl_.threads) {
                threads.item();
                if (Status s = thread(*th); !s.ok()) return s;
            }
        }
        root.key("pages").raw(std::string_view("[]"));
        const auto& parallel = impl_.parallel.windows();
        if ((!impl_.counters.empty() || !parallel.empty()) && impl_.haveBase &&
            !impl_.threads.empty()) {
            uint32_t main = 0;
            for (uint32_t i = 0; i < impl_.threads.size(); ++i)
                if (impl_.threads[i]->isMainThread) main = i;
            writeGeckoCounters(root.key("counters"), impl_.counters, parallel, impl_.baseUs, pid_,
                               main);
        }
        JsonObject shared(root.key("shared"));
        if (Status s = stringArray(shared); !s.ok()) return s;
        shared.key("sources").raw(R"({"length":0,"uuid":[],"filename":[]})");
    }
    if (Status s = out_.flush(); !s.ok()) return s;
    if (progress_) progress_(total_, total_);
    return {};
}

Status ProfileStreamer::thread(GeckoThread& th) {
    JsonObject t(out_);
    const auto named = impl_.threadNames.find(th.tid);
    t.key("name").string(named != impl_.threadNames.end()
                             ? named->second + " (" + std::to_string(th.tid) + ")"
                             : "Thread-" + std::to_string(th.tid));
    t.key("isMainThread").boolean(th.isMainThread);
    t.key("processStartupTime").integer(0);
    t.key("processShutdownTime").null();
    t.key("registerTime").integer(0);
    t.key("unregisterTime").null();
    t.key("pausedRanges").raw(std::string_view("[]"));
    t.key("pid").string(pid_);
    t.key("tid").unsignedInteger(th.tid);
    t.key("processType").string("default");
    t.key("processName").string("Python Process");
    t.key("samples");
    if (Status s = samples(th); !s.ok()) return s;
    if (Status s = tables(th, t); !s.ok()) return s;
    t.key("markers");
    if (Status s = markers(th); !s.ok()) return s;
    return out_.status();
}

Status ProfileStreamer::samples(GeckoThread& th) {
    const uint64_t n = th.sampleCount();
    JsonObject o(out_);
    Status s = spilled<int32_t>(o, "stack", th.samplesStack, n, [this](int32_t v) {
        if (v < 0)
            out_.null();
        else
            out_.integer(v);
    });
    if (!s.ok()) return s;
    s = spilled<double>(o, "time", th.samplesTime, n, [this](double v) { out_.number(v); });
    if (!s.ok()) return s;
    if (s = repeated(o, "eventDelay", n, "null"); !s.ok()) return s;
    o.key("weight").null();
    o.key("weightType").string("samples");
    o.key("length").unsignedInteger(n);
    return out_.status();
}

Status ProfileStreamer::markers(GeckoThread& th) {
    const uint64_t m = th.markerCount();
    JsonObject o(out_);
    if (Status s = markerData(th, o); !s.ok()) return s;
    const auto unsignedInteger = [this](auto v) { out_.unsignedInteger(v); };
    const auto number = [this](double v) { out_.number(v); };
    Status s = spilled<uint32_t>(o, "name", th.markersName, m, unsignedInteger);
    if (!s.ok()) return s;
    if (s = spilled<double>(o, "startTime", th.markersStart, m, number); !s.ok()) return s;
    if (s = spilled<double>(o, "endTime", th.markersEnd, m, number); !s.ok()) return s;
    if (s = spilled<uint8_t>(o, "phase", th.markersPhase, m, unsignedInteger); !s.ok()) return s;
    s = spilled<uint8_t>(o, "category", th.markersCategory, m, unsignedInteger);
    if (!s.ok()) return s;
    o.key("length").unsignedInteger(m);
    return out_.status();
}

Status ProfileStreamer::markerData(GeckoThread& th, JsonObject& markers) {
    const auto nullable = [](JsonWriter& out, int64_t v, bool isNull) {
        if (isNull)
            out.null();
        else
            out.integer(v);
    };
    return spilled<MarkerRecord>(markers, "data", th.markersData, th.markerCount(),
                                 [&](const MarkerRecord& r) {
                                     JsonObject d(out_);
                                     if (r.kind < kIntervalKinds) {
                                         d.key("type").string(kMarkerKinds[r.kind].type);
                                         d.key("duration").number(r.duration);
                                         d.key("tid").unsignedInteger(th.tid);
                                         return;
                                     }
                                     if (r.kind == kUserMarker) {
                                         d.key("type").string("UserMark");
                                         return;
                                     }
                                     if (r.kind == kLabelMarker) {
                                         d.key("type").string("Label");
                                         d.key("value").string(impl_.strings.at(r.function));
                                         d.key("duration").number(r.duration);
                                         return;
                                     }
                                     const OpcodeInfo info = opcodeInfo(r.opcode);
                                     d.key("type").string("Opcode");
                                     d.key("opcode").unsignedInteger(r.opcode);
                                     d.key("opname").string(formatOpcode(r.opcode));
                                     d.key("base_opname").string(info.baseOpname);
                                     d.key("is_specialized").boolean(info.isSpecialized);
                                     nullable(d.key("line"), r.line, r.line == kNullLine);
                                     nullable(d.key("column"), r.column, r.column < 0);
                                     d.key("function").string(impl_.strings.at(r.function));
                                     d.key("duration").number(r.duration);
                                 });
}

Status ProfileStreamer::tables(GeckoThread& th, JsonObject& thread) {
    const auto integer = [this](auto v) { out_.integer(static_cast<int64_t>(v)); };
    const auto nullable = [this](int64_t v) { // -1 = null
        if (v < 0)
            out_.null();
        else
            out_.integer(v);
    };
    const auto line = [this](int64_t v) {
        if (v == kNullLine)
            out_.null();
        else
            out_.integer(v);
    };
    const auto boolean = [this](uint8_t v) { out_.boolean(v != 0); };
    Status s;
#define GILSCOPE_TRY(expr)                                                                         \
    if (s = (expr); !s.ok()) return s

    {
        const uint64_t stacks = th.stackFrame.size();
        JsonObject t(thread.key("stackTable"));
        GILSCOPE_TRY(column(t, "frame", th.stackFrame, stacks, integer));
        GILSCOPE_TRY(column(t, "category", th.stackCategory, stacks, integer));
        GILSCOPE_TRY(repeated(t, "subcategory", stacks, "0"));
        GILSCOPE_TRY(column(t, "prefix", th.stackPrefix, stacks, nullable));
        t.key("length").unsignedInteger(stacks);
    }
    {
        const uint64_t frames = th.frameFunc.size();
        JsonObject t(thread.key("frameTable"));
        GILSCOPE_TRY(repeated(t, "address", frames, "-1"));
        GILSCOPE_TRY(column(t, "category", th.frameCategory, frames, integer));
        GILSCOPE_TRY(repeated(t, "subcategory", frames, "0"));
        GILSCOPE_TRY(column(t, "func", th.frameFunc, frames, integer));
        GILSCOPE_TRY(repeated(t, "innerWindowID", frames, "null"));
        GILSCOPE_TRY(repeated(t, "implementation", frames, "null"));
        GILSCOPE_TRY(repeated(t, "optimizations", frames, "null"));
        GILSCOPE_TRY(column(t, "line", th.frameLine, frames, line));
        GILSCOPE_TRY(column(t, "column", th.frameColumn, frames, nullable));
        GILSCOPE_TRY(repeated(t, "inlineDepth", frames, "0"));
        GILSCOPE_TRY(repeated(t, "nativeSymbol", frames, "null"));
        t.key("length").unsignedInteger(frames);
    }
    {
        const uint64_t funcs = th.funcName.size();
        JsonObject t(thread.key("funcTable"));
        GILSCOPE_TRY(column(t, "name", th.funcName, funcs, integer));
        GILSCOPE_TRY(column(t, "isJS", th.funcIsJs, funcs, boolean));
        GILSCOPE_TRY(column(t, "relevantForJS", th.funcIsJs, funcs, boolean));
        GILSCOPE_TRY(column(t, "resource", th.funcResource, funcs, integer));
        GILSCOPE_TRY(column(t, "fileName", th.funcFileName, funcs, nullable));
        GILSCOPE_TRY(column(t, "lineNumber", th.funcLine, funcs, line));
        GILSCOPE_TRY(repeated(t, "columnNumber", funcs, "null"));
        t.key("length").unsignedInteger(funcs);
    }
    {
        const uint64_t resources = th.resourceName.size();
        JsonObject t(thread.key("resourceTable"));
        GILSCOPE_TRY(column(t, "lib", th.resourceLib, resources, nullable));
        GILSCOPE_TRY(column(t, "name", th.resourceName, resources, integer));
        GILSCOPE_TRY(repeated(t, "host", resources, "null"));
        GILSCOPE_TRY(repeated(t, "type", resources, "1"));
        t.key("length").unsignedInteger(resources);
    }
#undef GILSCOPE_TRY
    thread.key("nativeSymbols")
        .raw(R"({"libIndex":[],"address":[],"name":[],"functionSize":[],"length":0})");
    return out_.status();
}

Status ProfileStreamer::stringArray(JsonObject& shared) {
    JsonArray array(shared.key("stringArray"));
    for (size_t i = 0; i < impl_.strings.size(); ++i) {
        array.item().string(impl_.strings.at(static_cast<uint32_t>(i)));
        if (Status s = itemDone(true); !s.ok()) return s;
    }
    return out_.status();
}

} // namespace gilscope
