#pragma once

#include "core/tach/tach_info.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gilscope {

// One fact a .bin recording states about itself, e.g. ("Compression", "zstd").
struct TachField {
    std::string label;
    std::string value;
};

struct TachDescribeOptions {
    // Adds "Samples per thread" (each thread's count when loaded; estimated from the
    // header when nullopt or empty) and then calls the header's count what it is,
    // "Thread-samples, total".
    std::optional<std::vector<uint64_t>> perThreadSamples;
    bool groupDigits = false; // counts as 23,060, for reading rather than for scripts
};

// The one describer of a .bin header: `gilscope info`'s text and the GUI's file-info
// grid both show these fields, in this order.
std::vector<TachField> describeTachInfo(const TachInfo& info,
                                        const TachDescribeOptions& options = {});

// The fields as `gilscope info` prints them: "Label:" padded to one column, then the value.
std::string tachInfoText(const TachInfo& info);

const char* profilingModeName(int mode);           // "wall", "cpu", ... or "unknown"
const char* compressionName(uint32_t compression); // "none" or "zstd"

// 1234567 -> "1,234,567", as CPython prints counts.
std::string groupedThousands(uint64_t n);

} // namespace gilscope
