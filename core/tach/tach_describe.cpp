#include "core/tach/tach_describe.h"

#include "core/util/python_version.h"

#include <algorithm>
#include <cstdio>

namespace gilscope {

namespace {

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

template <typename... Args>
std::string format(const char* fmt, Args... args) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

std::string perThreadText(const TachInfo& info, const std::vector<uint64_t>& counts, bool group) {
    auto count = [&](uint64_t n) { return group ? groupedThousands(n) : std::to_string(n); };
    if (!counts.empty()) {
        const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
        return *lo == *hi ? count(*lo) : count(*lo) + " – " + count(*hi);
    }
    // The header counts every thread's samples; a thread alive throughout has about this.
    return info.threadCount ? "≈ " + count(info.sampleCount / info.threadCount) : "";
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

const char* compressionName(uint32_t compression) {
    // The reader rejects anything but 0 and 1 ("Unknown compression type").
    return compression == 1 ? "zstd" : "none";
}

std::vector<TachField> describeTachInfo(const TachInfo& info, const TachDescribeOptions& o) {
    auto count = [&](uint64_t n) {
        return o.groupDigits ? groupedThousands(n) : std::to_string(n);
    };
    std::vector<TachField> f;
    f.push_back({"Format", format("TACH version %u%s", info.version,
                                  info.byteSwapped ? " (other byte order)" : "")});
    f.push_back(
        {"Written by",
         "Python " + PythonVersion{info.pythonMajor, info.pythonMinor, info.pythonMicro}.str()});
    if (info.freeThreaded) f.push_back({"Target", "free-threaded Python (no GIL)"});
    f.push_back({"Start time", std::to_string(info.startTimeUs) + " us (monotonic)"});
    f.push_back({"Sample interval", std::to_string(info.sampleIntervalUs) + " us"});
    f.push_back({"Mode", info.mode ? profilingModeName(*info.mode) : "unknown"});
    f.push_back({"Capture features",
                 info.captureFeatures ? featureNames(*info.captureFeatures) : "unknown"});
    f.push_back({"Compression", compressionName(info.compression)});
    if (o.perThreadSamples) {
        // Per thread and in total side by side: the sample rate and duration are per
        // thread (ticks), the header's count is every thread's.
        if (std::string perThread = perThreadText(info, *o.perThreadSamples, o.groupDigits);
            !perThread.empty())
            f.push_back({"Samples per thread", std::move(perThread)});
        f.push_back({"Thread-samples, total", count(info.sampleCount)});
    } else {
        f.push_back({"Samples", count(info.sampleCount)});
    }
    f.push_back({"Threads", count(info.threadCount)});
    f.push_back({"Strings", count(info.stringCount)});
    f.push_back({"Frames", count(info.frameCount)});
    f.push_back({"File size", count(info.fileSize) + " bytes (records " +
                                  count(info.sampleDataBytes) + " bytes" +
                                  (info.compression == 1 ? " decompressed)" : ")")});
    if (info.stats) {
        f.push_back({"Duration", format("%.3f s", info.stats->durationSec)});
        f.push_back({"Sample rate", format("%.2f samples/s", info.stats->sampleRate)});
        if (info.stats->errorRatePct)
            f.push_back({"Error rate", format("%.2f%%", *info.stats->errorRatePct)});
        if (info.stats->missedPct)
            f.push_back({"Missed samples", format("%.2f%%", *info.stats->missedPct)});
    } else {
        f.push_back({"Statistics", "none (no TACHSTAT block)"});
    }
    if (!info.sideFile.empty()) f.push_back({"Side file", info.sideFile});
    return f;
}

std::string tachInfoText(const TachInfo& info) {
    constexpr size_t kValueColumn = 19;
    std::string out;
    for (const TachField& field : describeTachInfo(info)) {
        std::string head = field.label + ":";
        head.resize(std::max(kValueColumn, head.size() + 1), ' ');
        out += head + field.value + '\n';
    }
    return out;
}

std::string groupedThousands(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace gilscope
