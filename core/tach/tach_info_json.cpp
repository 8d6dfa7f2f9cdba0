#include "core/tach/tach_info_json.h"

namespace gilscope {

namespace {

template <typename T>
nlohmann::ordered_json orNull(const std::optional<T>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

} // namespace

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
    // gilscope's own, from its side file: only when true, so CPython's dict stays as it is.
    if (info.freeThreaded) j["free_threaded"] = true;
    return j;
}

nlohmann::ordered_json tachReaderStatsJson(const TachRecordStats& s) {
    return {
        {"repeat_records", s.repeatRecords},    {"repeat_samples", s.repeatSamples},
        {"full_records", s.fullRecords},        {"suffix_records", s.suffixRecords},
        {"pop_push_records", s.popPushRecords}, {"total_records", s.totalRecords()},
        {"total_samples", s.totalSamples},      {"stack_reconstructions", s.stackReconstructions}};
}

} // namespace gilscope
