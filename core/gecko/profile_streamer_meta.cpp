// The profile's "meta" (categories, marker schemas, the machine) and "libs": what the
// Firefox Profiler reads before any thread.
#include "core/gecko/profile_streamer.h"

#include "core/util/file_name.h"

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
// Appended only when a stack ends in a wait leaf (--wait-reasons): without them the
// profile stays byte for byte what CPython writes.
constexpr std::string_view kWaitCategories =
    R"({"name":"Lock","color":"brown","subcategories":["Other"]},)"
    R"({"name":"Network/I/O","color":"lightgreen","subcategories":["Other"]},)"
    R"({"name":"Sleep","color":"darkgray","subcategories":["Other"]},)"
    R"({"name":"Idle","color":"transparent","subcategories":["Other"]}])";

constexpr std::string_view kOpcodeSchema =
    R"({"name":"Opcode","display":["marker-table","marker-chart"],)"
    R"("tooltipLabel":"{marker.data.opname}","tableLabel":"{marker.data.opname} at line {marker.data.line}",)"
    R"("chartLabel":"{marker.data.opname}","fields":[)"
    R"({"key":"opname","label":"Opcode","format":"string","searchable":true},)"
    R"({"key":"base_opname","label":"Base Opcode","format":"string"},)"
    R"({"key":"is_specialized","label":"Specialized","format":"string"},)"
    R"({"key":"line","label":"Line","format":"integer"},)"
    R"({"key":"column","label":"Column","format":"integer"},)"
    R"({"key":"function","label":"Function","format":"string"},)"
    R"({"key":"duration","label":"Duration","format":"duration"}]})";
// The user's marks (`mark TEXT`, Add marker…): instants named by their text.
constexpr std::string_view kUserMarkSchema =
    R"({"name":"UserMark","display":["marker-chart","marker-table","timeline-overview"],)"
    R"("chartLabel":"{marker.name}","tableLabel":"{marker.name}",)"
    R"("tooltipLabel":"{marker.name}","fields":[]})";

// --label-from: a run of samples with one label value, named by the label's key, so the
// marker chart has a row per key (a Requests track) and each span shows its value.
constexpr std::string_view kLabelSchema =
    R"({"name":"Label","display":["marker-chart","marker-table","timeline-overview"],)"
    R"("chartLabel":"{marker.data.value}","tableLabel":"{marker.name}={marker.data.value}",)"
    R"("tooltipLabel":"{marker.name}={marker.data.value}","fields":[)"
    R"({"key":"value","label":"Value","format":"string","searchable":true},)"
    R"({"key":"duration","label":"Duration","format":"duration"}]})";

} // namespace

void ProfileStreamer::libs(JsonWriter& out) {
    // Native frames are named already (symbolicated: true), so no build id is needed.
    JsonArray array(out);
    for (uint32_t file : impl_.libs) {
        const std::string& path = impl_.facts.text(file);
        const std::string_view name = fileName(path);
        JsonObject lib(array.item());
        lib.key("arch").string(abi_);
        lib.key("name").string(name);
        lib.key("path").string(path);
        lib.key("debugName").string(name);
        lib.key("debugPath").string(path);
        lib.key("breakpadId").string("");
        lib.key("codeId").null();
    }
}

Status ProfileStreamer::meta() {
    JsonObject m(out_);
    m.key("interval").number(impl_.interval);
    m.key("startTime").number(impl_.startTimeMs);
    m.key("abi").string(abi_);
    m.key("misc").string("Python profiler");
    m.key("oscpu").string(abi_);
    m.key("platform").string(platform_);
    m.key("processType").integer(0);
    bool waits = impl_.usesWaitCategories; // wait markers
    for (const auto& th : impl_.threads)
        for (uint8_t c : th->stackCategory)
            waits = waits || c >= kLockCategory;
    if (waits) {
        // kCategories without its closing bracket, then the wait categories.
        std::string all(kCategories.substr(0, kCategories.size() - 1));
        all += ",";
        all += kWaitCategories;
        m.key("categories").raw(all);
    } else {
        m.key("categories").raw(kCategories);
    }
    m.key("stackwalk").integer(0);
    m.key("toolkit").string("");
    m.key("version").integer(32);
    m.key("preprocessedProfileVersion").integer(57);
    m.key("appBuildID").string("");
    m.key("physicalCPUs").integer(cpus_);
    m.key("logicalCPUs").integer(cpus_);
    m.key("CPUName").string("");
    m.key("product").string("Python");
    m.key("symbolicated").boolean(true);
    std::string schema = "[";
    if (impl_.opt.opcodes) schema += kOpcodeSchema;
    if (impl_.wroteUserMarks)
        schema += (schema.size() > 1 ? "," : "") + std::string(kUserMarkSchema);
    if (impl_.wroteLabels) schema += (schema.size() > 1 ? "," : "") + std::string(kLabelSchema);
    m.key("markerSchema").raw(schema + "]");
    m.key("importedFrom").string("Tachyon Sampling Profiler");
    m.key("extensions").raw(R"({"id":[],"name":[],"baseURL":[],"length":0})");
    return out_.status();
}

} // namespace gilscope
