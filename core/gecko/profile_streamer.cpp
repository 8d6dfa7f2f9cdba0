#include "core/gecko/profile_streamer.h"

#include "core/gecko/opcode_names.h"

#include <cstring>
#include <string>

namespace gilscope {

namespace {

constexpr std::string_view kCategories =
    R"([{"name":"Other","color":"grey","subcategories":["Other"]},)"
    R"({"name":"Python","color":"yellow","subcategories":["Other"]},)"
    R"({"name":"Native","color":"blue","subcategories":["Other"]},)"
    R"({"name":"GC","color":"orange","subcategories":["Other"]},)"
    R"({"name":"GIL","color":"green","subcategories":["Other"]},)"
    R"({"name":"CPU","color":"purple","subcategories":["Other"]},)"
    R"({"name":"Code Type","color":"red","subcategories":["Other"]},)"
    R"({"name":"Opcodes","color":"magenta","subcategories":["Other"]},)"
    R"({"name":"Exception","color":"lightblue","subcategories":["Other"]}])";

constexpr std::string_view kOpcodeSchema =
    R"([{"name":"Opcode","display":["marker-table","marker-chart"],)"
    R"("tooltipLabel":"{marker.data.opname}","tableLabel":"{marker.data.opname} at line {marker.data.line}",)"
    R"("chartLabel":"{marker.data.opname}","fields":[)"
    R"({"key":"opname","label":"Opcode","format":"string","searchable":true},)"
    R"({"key":"base_opname","label":"Base Opcode","format":"string"},)"
    R"({"key":"is_specialized","label":"Specialized","format":"string"},)"
    R"({"key":"line","label":"Line","format":"integer"},)"
    R"({"key":"column","label":"Column","format":"integer"},)"
    R"({"key":"function","label":"Function","format":"string"},)"
    R"({"key":"duration","label":"Duration","format":"duration"}]}])";

constexpr uint64_t kTickMask = 4095; // check cancel/progress every 4096 items

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

Status ProfileStreamer::tick() {
    if ((++done_ & kTickMask) != 0) return {};
    if (cancel_ && cancel_->cancelled())
        return makeError(ErrorKind::Cancelled, "Gecko export cancelled");
    if (progress_) progress_(done_, total_);
    return out_.status();
}

Status ProfileStreamer::checkCount(uint64_t count, uint64_t expected, const char* label) {
    if (count == expected) return {};
    return makeError(ErrorKind::Internal, "streamed " + std::to_string(count) + " " + label +
                                              " items, expected " + std::to_string(expected) +
                                              "; the profile was not written");
}

template <typename T, typename Fn>
Status ProfileStreamer::spilled(const SpillColumn& col, uint64_t expected, const char* label,
                                Fn&& write) {
    auto reader = SpillReader::open(col);
    if (!reader.ok()) return reader.error();
    out_.raw('"');
    out_.raw(label);
    out_.raw("\":[");
    uint64_t count = 0;
    while (const char* rec = reader->next()) {
        if (count) out_.raw(',');
        write(load<T>(rec));
        ++count;
        if (Status s = tick(); !s.ok()) return s;
    }
    if (!reader->status().ok()) return reader->status();
    out_.raw(']');
    return checkCount(count, expected, label);
}

template <typename Vec, typename Fn>
Status ProfileStreamer::column(const char* name, const Vec& values, uint64_t expected, Fn&& write,
                               bool first) {
    if (!first) out_.raw(',');
    out_.raw('"');
    out_.raw(name);
    out_.raw("\":[");
    uint64_t count = 0;
    for (const auto& v : values) {
        if (count) out_.raw(',');
        write(v);
        if ((++count & kTickMask) == 0 && cancel_ && cancel_->cancelled())
            return makeError(ErrorKind::Cancelled, "Gecko export cancelled");
    }
    out_.raw(']');
    return checkCount(count, expected, name);
}

Status ProfileStreamer::run() {
    out_.raw("{\"meta\":");
    if (Status s = meta(); !s.ok()) return s;
    out_.raw(",\"libs\":[],\"threads\":[");
    bool first = true;
    for (auto& th : impl_.threads) {
        if (!first) out_.raw(',');
        first = false;
        if (Status s = thread(*th); !s.ok()) return s;
    }
    out_.raw("],\"pages\":[],\"shared\":{\"stringArray\":[");
    if (Status s = stringArray(); !s.ok()) return s;
    out_.raw("],\"sources\":{\"length\":0,\"uuid\":[],\"filename\":[]}}}");
    if (Status s = out_.flush(); !s.ok()) return s;
    if (progress_) progress_(total_, total_);
    return {};
}

Status ProfileStreamer::meta() {
    out_.raw("{\"interval\":");
    out_.number(impl_.interval);
    out_.raw(",\"startTime\":");
    out_.number(impl_.startTimeMs);
    out_.raw(",\"abi\":");
    out_.string(abi_);
    out_.raw(",\"misc\":\"Python profiler\",\"oscpu\":");
    out_.string(abi_);
    out_.raw(",\"platform\":");
    out_.string(platform_);
    out_.raw(",\"processType\":0,\"categories\":");
    out_.raw(kCategories);
    out_.raw(",\"stackwalk\":0,\"toolkit\":\"\",\"version\":32,\"preprocessedProfileVersion\":57,"
             "\"appBuildID\":\"\",\"physicalCPUs\":");
    out_.integer(cpus_);
    out_.raw(",\"logicalCPUs\":");
    out_.integer(cpus_);
    out_.raw(",\"CPUName\":\"\",\"product\":\"Python\",\"symbolicated\":true,\"markerSchema\":");
    out_.raw(impl_.opt.opcodes ? kOpcodeSchema : std::string_view("[]"));
    out_.raw(",\"importedFrom\":\"Tachyon Sampling Profiler\","
             "\"extensions\":{\"id\":[],\"name\":[],\"baseURL\":[],\"length\":0}}");
    return out_.status();
}

Status ProfileStreamer::thread(GeckoThread& th) {
    out_.raw("{\"name\":");
    out_.string("Thread-" + std::to_string(th.tid));
    out_.raw(",\"isMainThread\":");
    out_.boolean(th.isMainThread);
    out_.raw(",\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":0,"
             "\"unregisterTime\":null,\"pausedRanges\":[],\"pid\":");
    out_.string(pid_);
    out_.raw(",\"tid\":");
    out_.unsignedInteger(th.tid);
    out_.raw(",\"processType\":\"default\",\"processName\":\"Python Process\",\"samples\":");
    if (Status s = samples(th); !s.ok()) return s;
    if (Status s = tables(th); !s.ok()) return s;
    out_.raw(",\"markers\":");
    if (Status s = markers(th); !s.ok()) return s;
    out_.raw('}');
    return out_.status();
}

Status ProfileStreamer::samples(GeckoThread& th) {
    const uint64_t n = th.sampleCount();
    out_.raw('{');
    Status s = spilled<int32_t>(th.samplesStack, n, "stack", [this](int32_t v) {
        if (v < 0)
            out_.null();
        else
            out_.integer(v);
    });
    if (!s.ok()) return s;
    out_.raw(',');
    s = spilled<double>(th.samplesTime, n, "time", [this](double v) { out_.number(v); });
    if (!s.ok()) return s;
    out_.raw(",\"eventDelay\":[");
    for (uint64_t i = 0; i < n; ++i) {
        out_.raw(i ? std::string_view(",null") : std::string_view("null"));
        if ((i & kTickMask) == kTickMask && cancel_ && cancel_->cancelled())
            return makeError(ErrorKind::Cancelled, "Gecko export cancelled");
    }
    out_.raw("],\"weight\":null,\"weightType\":\"samples\",\"length\":");
    out_.unsignedInteger(n);
    out_.raw('}');
    return out_.status();
}

Status ProfileStreamer::markers(GeckoThread& th) {
    const uint64_t m = th.markerCount();
    out_.raw('{');
    if (Status s = markerData(th); !s.ok()) return s;
    out_.raw(',');
    Status s = spilled<uint32_t>(th.markersName, m, "name",
                                 [this](uint32_t v) { out_.unsignedInteger(v); });
    if (!s.ok()) return s;
    out_.raw(',');
    s = spilled<double>(th.markersStart, m, "startTime", [this](double v) { out_.number(v); });
    if (!s.ok()) return s;
    out_.raw(',');
    s = spilled<double>(th.markersEnd, m, "endTime", [this](double v) { out_.number(v); });
    if (!s.ok()) return s;
    out_.raw(',');
    s = spilled<uint8_t>(th.markersPhase, m, "phase",
                         [this](uint8_t v) { out_.unsignedInteger(v); });
    if (!s.ok()) return s;
    out_.raw(',');
    s = spilled<uint8_t>(th.markersCategory, m, "category",
                         [this](uint8_t v) { out_.unsignedInteger(v); });
    if (!s.ok()) return s;
    out_.raw(",\"length\":");
    out_.unsignedInteger(m);
    out_.raw('}');
    return out_.status();
}

Status ProfileStreamer::markerData(GeckoThread& th) {
    return spilled<MarkerRecord>(th.markersData, th.markerCount(), "data",
                                 [this, &th](const MarkerRecord& r) {
                                     if (r.kind < kIntervalKinds) {
                                         out_.raw("{\"type\":\"");
                                         out_.raw(kMarkerKinds[r.kind].type);
                                         out_.raw("\",\"duration\":");
                                         out_.number(r.duration);
                                         out_.raw(",\"tid\":");
                                         out_.unsignedInteger(th.tid);
                                         out_.raw('}');
                                         return;
                                     }
                                     const OpcodeInfo info = opcodeInfo(r.opcode);
                                     out_.raw("{\"type\":\"Opcode\",\"opcode\":");
                                     out_.unsignedInteger(r.opcode);
                                     out_.raw(",\"opname\":");
                                     out_.string(formatOpcode(r.opcode));
                                     out_.raw(",\"base_opname\":");
                                     out_.string(info.baseOpname);
                                     out_.raw(",\"is_specialized\":");
                                     out_.boolean(info.isSpecialized);
                                     out_.raw(",\"line\":");
                                     if (r.line == kNullLine)
                                         out_.null();
                                     else
                                         out_.integer(r.line);
                                     out_.raw(",\"column\":");
                                     if (r.column < 0)
                                         out_.null();
                                     else
                                         out_.integer(r.column);
                                     out_.raw(",\"function\":");
                                     out_.string(impl_.strings.at(r.function));
                                     out_.raw(",\"duration\":");
                                     out_.number(r.duration);
                                     out_.raw('}');
                                 });
}

Status ProfileStreamer::tables(GeckoThread& th) {
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
    const auto constant = [this](const char* text) {
        return [this, text](const auto&) { out_.raw(text); };
    };
    Status s;
#define GILSCOPE_TRY(expr)                                                                         \
    if (s = (expr); !s.ok()) return s

    const uint64_t stacks = th.stackFrame.size();
    out_.raw(",\"stackTable\":{");
    GILSCOPE_TRY(column("frame", th.stackFrame, stacks, integer, true));
    GILSCOPE_TRY(column("category", th.stackCategory, stacks, integer));
    GILSCOPE_TRY(column("subcategory", th.stackFrame, stacks, constant("0")));
    GILSCOPE_TRY(column("prefix", th.stackPrefix, stacks, nullable));
    out_.raw(",\"length\":");
    out_.unsignedInteger(stacks);

    const uint64_t frames = th.frameFunc.size();
    out_.raw("},\"frameTable\":{");
    GILSCOPE_TRY(column("address", th.frameFunc, frames, constant("-1"), true));
    GILSCOPE_TRY(column("category", th.frameCategory, frames, integer));
    GILSCOPE_TRY(column("subcategory", th.frameFunc, frames, constant("0")));
    GILSCOPE_TRY(column("func", th.frameFunc, frames, integer));
    GILSCOPE_TRY(column("innerWindowID", th.frameFunc, frames, constant("null")));
    GILSCOPE_TRY(column("implementation", th.frameFunc, frames, constant("null")));
    GILSCOPE_TRY(column("optimizations", th.frameFunc, frames, constant("null")));
    GILSCOPE_TRY(column("line", th.frameLine, frames, line));
    GILSCOPE_TRY(column("column", th.frameColumn, frames, nullable));
    GILSCOPE_TRY(column("inlineDepth", th.frameFunc, frames, constant("0")));
    GILSCOPE_TRY(column("nativeSymbol", th.frameFunc, frames, constant("null")));
    out_.raw(",\"length\":");
    out_.unsignedInteger(frames);

    const uint64_t funcs = th.funcName.size();
    out_.raw("},\"funcTable\":{");
    GILSCOPE_TRY(column("name", th.funcName, funcs, integer, true));
    GILSCOPE_TRY(column("isJS", th.funcIsJs, funcs, boolean));
    GILSCOPE_TRY(column("relevantForJS", th.funcIsJs, funcs, boolean));
    GILSCOPE_TRY(column("resource", th.funcResource, funcs, integer));
    GILSCOPE_TRY(column("fileName", th.funcFileName, funcs, nullable));
    GILSCOPE_TRY(column("lineNumber", th.funcLine, funcs, line));
    GILSCOPE_TRY(column("columnNumber", th.funcName, funcs, constant("null")));
    out_.raw(",\"length\":");
    out_.unsignedInteger(funcs);

    const uint64_t resources = th.resourceName.size();
    out_.raw("},\"resourceTable\":{");
    GILSCOPE_TRY(column("lib", th.resourceName, resources, constant("null"), true));
    GILSCOPE_TRY(column("name", th.resourceName, resources, integer));
    GILSCOPE_TRY(column("host", th.resourceName, resources, constant("null")));
    GILSCOPE_TRY(column("type", th.resourceName, resources, constant("1")));
    out_.raw(",\"length\":");
    out_.unsignedInteger(resources);
    out_.raw("},\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],"
             "\"length\":0}");
#undef GILSCOPE_TRY
    return out_.status();
}

Status ProfileStreamer::stringArray() {
    for (size_t i = 0; i < impl_.strings.size(); ++i) {
        if (i) out_.raw(',');
        out_.string(impl_.strings.at(static_cast<uint32_t>(i)));
        if (Status s = tick(); !s.ok()) return s;
    }
    return out_.status();
}

} // namespace gilscope
