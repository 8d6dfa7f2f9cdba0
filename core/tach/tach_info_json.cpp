#include "core/tach/tach_info_json.h"

#include <cstdio>

namespace gilscope {

namespace {

template <typename T>
nlohmann::ordered_json orNull(const std::optional<T>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string featureNames(int features) {
    static const char* const kNames[] = {"all_threads", "native", "gc", "opcodes", "blocking"};
    std::string out;
    for (int bit = 0; bit < 5; ++bit) {
        if (!(features & (1 << bit))) continue;
        if (!out.empty()) out += ", ";
        out += kNames[bit];
    }
    return out.empty() ? "none" : out;
}

} // namespace

const char* profilingModeName(int mode) {
    switch (mode) {
    case 0:
        return "wall";
    case 1:
        return "cpu";
    case 2:
        return "gil";
    case 3:
        return "all";
    case 4:
        return "exception";
    default:
        return "unknown";
    }
}

nlohmann::ordered_json tachInfoJson(const TachInfo& info) {
    nlohmann::ordered_json j;
    j["version"] = info.version;
    j["python_version"] = {info.pythonMajor, info.pythonMinor, info.pythonMicro};
    j["start_time_us"] = info.startTimeUs;
    j["sample_interval_us"] = info.sampleIntervalUs;
    j["sample_count"] = info.sampleCount;
    j["thread_count"] = info.threadCount;
    j["string_count"] = info.stringCount;
    j["frame_count"] = info.frameCount;
    j["compression_type"] = info.compression;
    j["mode"] = orNull(info.mode);
    j["capture_features"] = orNull(info.captureFeatures);
    j["duration_sec"] = info.stats ? nlohmann::ordered_json(info.stats->durationSec)
                                   : nlohmann::ordered_json(nullptr);
    j["sample_rate"] = info.stats ? nlohmann::ordered_json(info.stats->sampleRate)
                                  : nlohmann::ordered_json(nullptr);
    j["error_rate"] =
        info.stats ? orNull(info.stats->errorRatePct) : nlohmann::ordered_json(nullptr);
    j["missed_samples"] =
        info.stats ? orNull(info.stats->missedPct) : nlohmann::ordered_json(nullptr);
    return j;
}

nlohmann::ordered_json tachReaderStatsJson(const TachRecordStats& s) {
    return {
        {"repeat_records", s.repeatRecords},    {"repeat_samples", s.repeatSamples},
        {"full_records", s.fullRecords},        {"suffix_records", s.suffixRecords},
        {"pop_push_records", s.popPushRecords}, {"total_records", s.totalRecords()},
        {"total_samples", s.totalSamples},      {"stack_reconstructions", s.stackReconstructions}};
}

std::string tachInfoText(const TachInfo& info) {
    char buf[256];
    std::string out;
    auto line = [&](const char* fmt, auto... args) {
        std::snprintf(buf, sizeof buf, fmt, args...);
        out += buf;
        out += '\n';
    };
    line("Format:            TACH version %u%s", info.version,
         info.byteSwapped ? " (other byte order)" : "");
    line("Written by:        Python %u.%u.%u", info.pythonMajor, info.pythonMinor,
         info.pythonMicro);
    line("Start time:        %llu us (monotonic)",
         static_cast<unsigned long long>(info.startTimeUs));
    line("Sample interval:   %llu us", static_cast<unsigned long long>(info.sampleIntervalUs));
    line("Mode:              %s", info.mode ? profilingModeName(*info.mode) : "unknown");
    line("Capture features:  %s",
         info.captureFeatures ? featureNames(*info.captureFeatures).c_str() : "unknown");
    line("Compression:       %s", info.compression == 1 ? "zstd" : "none");
    line("Samples:           %llu", static_cast<unsigned long long>(info.sampleCount));
    line("Threads:           %u", info.threadCount);
    line("Strings:           %u", info.stringCount);
    line("Frames:            %u", info.frameCount);
    line("File size:         %llu bytes (records %llu bytes%s)",
         static_cast<unsigned long long>(info.fileSize),
         static_cast<unsigned long long>(info.sampleDataBytes),
         info.compression == 1 ? " decompressed" : "");
    if (info.stats) {
        line("Duration:          %.3f s", info.stats->durationSec);
        line("Sample rate:       %.2f samples/s", info.stats->sampleRate);
        if (info.stats->errorRatePct) line("Error rate:        %.2f%%", *info.stats->errorRatePct);
        if (info.stats->missedPct) line("Missed samples:    %.2f%%", *info.stats->missedPct);
    } else {
        out += "Statistics:        none (no TACHSTAT block)\n";
    }
    return out;
}

} // namespace gilscope
