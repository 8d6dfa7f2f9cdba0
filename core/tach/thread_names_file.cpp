#include "core/tach/thread_names_file.h"

#include "core/util/atomic_file.h"
#include "core/util/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <type_traits>

namespace gilscope {

namespace {
constexpr const char* kFormat = "gilscope-thread-names";
constexpr int kVersion = 1;

// The interpreter's GC counts, in columns beside the others: null where a reading has
// none. Only written when some reading has them.
constexpr const char* kGcColumns[] = {"gc0", "gc1", "gc2", "gc_collected"};

void writeGcColumns(const std::vector<ProcessCounters>& counters, nlohmann::json& out) {
    if (std::none_of(counters.begin(), counters.end(),
                     [](const ProcessCounters& r) { return r.gcKnown; }))
        return;
    for (size_t col = 0; col < std::size(kGcColumns); ++col) {
        auto values = nlohmann::json::array();
        for (const ProcessCounters& r : counters) {
            if (!r.gcKnown)
                values.push_back(nullptr);
            else
                values.push_back(col < kGcGenerations ? r.gcCollections[col] : r.gcCollected);
        }
        out[kGcColumns[col]] = std::move(values);
    }
}

// The GC columns, when present: each as long as the others, unsigned or null in every
// column at once. False: they disagree, and the counters are not kept.
bool readGcColumns(const nlohmann::json& c, std::vector<ProcessCounters>& readings) {
    const nlohmann::json* cols[std::size(kGcColumns)];
    size_t present = 0;
    for (size_t i = 0; i < std::size(kGcColumns); ++i) {
        const auto col = c.find(kGcColumns[i]);
        cols[i] = col == c.end() ? nullptr : &*col;
        if (!cols[i]) continue;
        if (!cols[i]->is_array() || cols[i]->size() != readings.size()) return false;
        ++present;
    }
    if (present == 0) return true;
    if (present != std::size(kGcColumns)) return false;
    for (size_t k = 0; k < readings.size(); ++k) {
        const bool known = !(*cols[0])[k].is_null();
        for (const nlohmann::json* col : cols)
            if (known ? !(*col)[k].is_number_unsigned() : !(*col)[k].is_null()) return false;
        if (!known) continue;
        ProcessCounters& r = readings[k];
        r.gcKnown = true;
        for (size_t g = 0; g < kGcGenerations; ++g)
            r.gcCollections[g] = (*cols[g])[k].get<uint64_t>();
        r.gcCollected = (*cols[kGcGenerations])[k].get<uint64_t>();
    }
    return true;
}

// The side file's counter columns: all four of one length, unsigned, times in order;
// anything else keeps no counters rather than wrong ones.
void readCounters(const nlohmann::json& j, std::vector<ProcessCounters>& out) {
    const auto c = j.find("counters");
    if (c == j.end() || !c->is_object()) return;
    const char* names[] = {"time_us", "rss_bytes", "threads", "cpu_ns"};
    const nlohmann::json* cols[4];
    for (int i = 0; i < 4; ++i) {
        const auto col = c->find(names[i]);
        if (col == c->end() || !col->is_array()) return;
        cols[i] = &*col;
    }
    const size_t n = cols[0]->size();
    if (n > CounterSeries::kMaxReadings) return;
    for (int i = 1; i < 4; ++i)
        if (cols[i]->size() != n) return;
    std::vector<ProcessCounters> readings;
    for (size_t k = 0; k < n; ++k) {
        for (int i = 0; i < 4; ++i)
            if (!(*cols[i])[k].is_number_unsigned()) return;
        ProcessCounters r;
        r.timeUs = (*cols[0])[k].get<uint64_t>();
        r.rssBytes = (*cols[1])[k].get<uint64_t>();
        const uint64_t threads = (*cols[2])[k].get<uint64_t>();
        if (threads > UINT32_MAX) return;
        r.threads = uint32_t(threads);
        r.cpuNs = (*cols[3])[k].get<uint64_t>();
        if (!readings.empty() && r.timeUs < readings.back().timeUs) return;
        readings.push_back(r);
    }
    if (!readGcColumns(*c, readings)) return;
    out = std::move(readings);
}

} // namespace

std::filesystem::path threadNamesPath(const std::filesystem::path& bin) {
    std::filesystem::path p = bin;
    p += ".names.json";
    return p;
}

Status writeBinSideFile(const std::filesystem::path& bin, const BinIdentity& identity,
                        const BinSideFacts& facts) {
    if (facts.empty()) return {};
    nlohmann::json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["bin_size"] = identity.fileSize;
    j["start_time_us"] = identity.startTimeUs;
    j["sample_count"] = identity.sampleCount;
    if (facts.freeThreaded) j["free_threaded"] = true;
    if (facts.cpus) j["cpus"] = facts.cpus;
    if (facts.nativeFrames) j["native_frames"] = true;
    auto& threads = j["threads"] = nlohmann::json::array();
    for (const auto& [tid, name] : facts.names)
        threads.push_back({{"tid", tid}, {"name", sanitizeUtf8(name)}});
    if (!facts.markers.empty()) {
        auto& markers = j["markers"] = nlohmann::json::array();
        for (const auto& [us, text] : facts.markers)
            markers.push_back({{"time_us", us}, {"text", sanitizeUtf8(text)}});
    }
    if (!facts.counters.empty()) {
        // Columns, not objects: 16k readings stay well within kMaxNamesFileBytes.
        auto time = nlohmann::json::array(), rss = time, threads = time, cpu = time;
        for (const ProcessCounters& r : facts.counters) {
            time.push_back(r.timeUs);
            rss.push_back(r.rssBytes);
            threads.push_back(r.threads);
            cpu.push_back(r.cpuNs);
        }
        j["counters"] = {{"time_us", std::move(time)},
                         {"rss_bytes", std::move(rss)},
                         {"threads", std::move(threads)},
                         {"cpu_ns", std::move(cpu)}};
        writeGcColumns(facts.counters, j["counters"]);
    }
    auto file = AtomicFile::create(threadNamesPath(bin));
    if (!file) return file.error();
    // Compact: 16k readings of eight columns, names and marks stay within kMaxNamesFileBytes.
    if (Status s = file->write(j.dump() + "\n"); !s) return s;
    return file->commit();
}

namespace {

BinSideFacts ignored(std::string why) {
    BinSideFacts facts;
    facts.state = SideFileState::Ignored;
    facts.ignoredWhy = std::move(why);
    return facts;
}

// j[key] when it holds a T, else `otherwise`: a crafted file's wrong type is no throw.
template <typename T>
T valueOr(const nlohmann::json& j, const char* key, T otherwise) {
    const auto it = j.find(key);
    if (it == j.end()) return otherwise;
    if constexpr (std::is_same_v<T, std::string>) {
        if (!it->is_string()) return otherwise;
    } else {
        if (!it->is_number_unsigned()) return otherwise;
    }
    return it->template get<T>();
}

} // namespace

BinSideFacts readBinSideFile(const std::filesystem::path& bin, const BinIdentity& identity) {
    const std::filesystem::path path = threadNamesPath(bin);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return {};
    if (!std::filesystem::is_regular_file(path, ec)) return ignored("not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return ignored(ec.message());
    if (size > kMaxNamesFileBytes)
        return ignored("larger than " + std::to_string(kMaxNamesFileBytes >> 20) + " MiB");
    std::ifstream in(path, std::ios::binary);
    std::string text(size, '\0');
    if (!in.read(text.data(), std::streamsize(size))) return ignored("unreadable");
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || valueOr<std::string>(j, "format", "") != kFormat ||
        valueOr<uint64_t>(j, "version", 0) != kVersion)
        return ignored("not " + std::string(kFormat) + " version " + std::to_string(kVersion));
    const BinIdentity stamped{valueOr<uint64_t>(j, "bin_size", 0),
                              valueOr<uint64_t>(j, "start_time_us", 0),
                              valueOr<uint64_t>(j, "sample_count", 0)};
    if (!(stamped == identity)) return ignored("another recording's");
    BinSideFacts facts;
    facts.state = SideFileState::Read;
    const auto ft = j.find("free_threaded");
    facts.freeThreaded = ft != j.end() && ft->is_boolean() && ft->get<bool>();
    if (const auto cpus = j.find("cpus");
        cpus != j.end() && cpus->is_number_unsigned() && cpus->get<uint64_t>() <= 65536)
        facts.cpus = cpus->get<uint32_t>();
    const auto native = j.find("native_frames");
    facts.nativeFrames = native != j.end() && native->is_boolean() && native->get<bool>();
    if (const auto markers = j.find("markers"); markers != j.end() && markers->is_array())
        for (const auto& m : *markers) {
            if (facts.markers.size() >= kMaxSideMarkers) break;
            if (!m.is_object() || !m.contains("time_us") || !m["time_us"].is_number_unsigned() ||
                !m.contains("text") || !m["text"].is_string())
                continue;
            std::string text = m["text"].get<std::string>();
            if (text.size() > kMaxMarkerText) continue;
            facts.markers.emplace_back(m["time_us"].get<uint64_t>(), sanitizeUtf8(text));
        }
    readCounters(j, facts.counters);
    const auto threads = j.find("threads");
    if (threads == j.end() || !threads->is_array()) return facts;
    ThreadNameMap& names = facts.names;
    for (const auto& t : *threads) {
        if (names.size() >= kMaxNamedThreads) break;
        if (!t.is_object() || !t.contains("tid") || !t["tid"].is_number_unsigned() ||
            !t.contains("name") || !t["name"].is_string())
            continue;
        const std::string name = t["name"].get<std::string>();
        if (!name.empty() && name.size() <= 1024)
            names[t["tid"].get<uint64_t>()] = sanitizeUtf8(name);
    }
    return facts;
}

std::string describeSideFile(const std::filesystem::path& bin, const BinSideFacts& facts) {
    // Printed by `info` and shown in the window: a name that is not UTF-8 is made so.
    const std::string name = sanitizeUtf8(threadNamesPath(bin).filename().string());
    // Short: it is one cell of the window's facts (docs/window.md says the rest).
    const std::string missing = "no thread names, marks or counters";
    switch (facts.state) {
    case SideFileState::Absent:
        return "none (no " + name + " beside it): " + missing;
    case SideFileState::Ignored:
        return name + " ignored (" + facts.ignoredWhy + "): " + missing;
    case SideFileState::Read:
        break;
    }
    std::vector<std::string> parts;
    if (!facts.names.empty()) parts.push_back(std::to_string(facts.names.size()) + " thread names");
    if (!facts.markers.empty()) parts.push_back(std::to_string(facts.markers.size()) + " marks");
    if (!facts.counters.empty())
        parts.push_back(std::to_string(facts.counters.size()) + " counter readings");
    if (facts.freeThreaded) parts.push_back("free-threaded");
    if (facts.nativeFrames) parts.push_back("C frames");
    std::string text = name;
    for (size_t i = 0; i < parts.size(); ++i)
        text += (i ? ", " : ": ") + parts[i];
    return text;
}

Status copyThreadNames(const std::filesystem::path& from, const std::filesystem::path& to) {
    const std::filesystem::path source = threadNamesPath(from);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(source, ec)) return {};
    const auto size = std::filesystem::file_size(source, ec);
    if (ec || size > kMaxNamesFileBytes) return {};
    std::ifstream in(source, std::ios::binary);
    std::string text(size, '\0');
    if (!in.read(text.data(), std::streamsize(size)))
        return makeError(ErrorKind::Io, "cannot read " + source.string());
    auto file = AtomicFile::create(threadNamesPath(to));
    if (!file) return file.error();
    if (Status s = file->write(text); !s) return s;
    return file->commit();
}

} // namespace gilscope
