#include "core/tach/tach_layout.h"

#include "core/tach/file_io.h"
#include "core/tach/tach_format.h"

#include <cmath>
#include <cstring>

namespace gilscope::tach {
namespace {

Status parseHeader(const uint8_t* h, TachInfo& info) {
    uint32_t magic;
    std::memcpy(&magic, h + hdr::Magic, 4);
    if (magic == kMagicSwapped)
        info.byteSwapped = true;
    else if (magic != kMagic)
        return corrupt(format("Invalid magic number: 0x%08x", magic));
    const bool sw = info.byteSwapped;

    info.version = loadInt<uint32_t>(h + hdr::Version, sw);
    info.pythonMajor = h[hdr::PyMajor];
    info.pythonMinor = h[hdr::PyMinor];
    info.pythonMicro = h[hdr::PyMicro];
    if (info.version > kFormatVersion) {
        return corrupt(
            format("Binary file was created with Python %u.%u.%u (format version %u), but this is "
                   "Python %d.%d.%d (format version %d)",
                   info.pythonMajor, info.pythonMinor, info.pythonMicro, info.version, kPythonMajor,
                   kPythonMinor, kPythonMicro, kFormatVersion));
    }
    if (info.version != kFormatVersion) {
        return corrupt(format("Unsupported format version %u (this reader supports version %d)",
                              info.version, kFormatVersion));
    }
    info.startTimeUs = loadInt<uint64_t>(h + hdr::StartTime, sw);
    info.sampleIntervalUs = loadInt<uint64_t>(h + hdr::Interval, sw);
    info.sampleCount = loadInt<uint64_t>(h + hdr::SampleCount, sw);
    info.threadCount = loadInt<uint32_t>(h + hdr::ThreadCount, sw);
    info.stringTableOffset = loadInt<uint64_t>(h + hdr::StringTable, sw);
    info.frameTableOffset = loadInt<uint64_t>(h + hdr::FrameTable, sw);
    info.compression = loadInt<uint32_t>(h + hdr::Compression, sw);

    const uint32_t config = loadInt<uint32_t>(h + hdr::Config, sw);
    const uint32_t modeBits = config & kConfigModeMask;
    if (modeBits > 5) return corrupt(format("Invalid profiling mode in header: %u", modeBits));
    if (modeBits) info.mode = static_cast<int>(modeBits) - 1;
    if (config & kConfigFeaturesKnown)
        info.captureFeatures =
            static_cast<int>((config >> kConfigFeaturesShift) & kConfigFeaturesMask);
    return {};
}

Status checkOffsets(const TachInfo& info, uint64_t fileSize) {
    const auto str = static_cast<unsigned long long>(info.stringTableOffset);
    const auto frm = static_cast<unsigned long long>(info.frameTableOffset);
    const auto size = static_cast<size_t>(fileSize);
    if (info.stringTableOffset > fileSize)
        return corrupt(
            format("Invalid string table offset: %llu exceeds file size %zu", str, size));
    if (info.frameTableOffset > fileSize)
        return corrupt(format("Invalid frame table offset: %llu exceeds file size %zu", frm, size));
    if (info.stringTableOffset < kHeaderSize)
        return corrupt(format("Invalid string table offset: %llu is before data section", str));
    if (info.frameTableOffset < kHeaderSize)
        return corrupt(format("Invalid frame table offset: %llu is before data section", frm));
    if (info.stringTableOffset > info.frameTableOffset)
        return corrupt(format(
            "Invalid table offsets: string table (%llu) is after frame table (%llu)", str, frm));
    if (info.compression > 1)
        return corrupt(format("Unknown compression type: %u", info.compression));
    return {};
}

Status checkCounts(const TachInfo& info, uint64_t fileSize) {
    const uint64_t maxStrings = fileSize - info.stringTableOffset;
    if (info.stringCount > maxStrings)
        return corrupt(format("Invalid string count %u exceeds maximum possible %zu",
                              info.stringCount, static_cast<size_t>(maxStrings)));
    const uint64_t maxFrames = (fileSize - info.frameTableOffset) / kMinFrameEntrySize;
    if (info.frameCount > maxFrames)
        return corrupt(format("Invalid frame count %u exceeds maximum possible %zu",
                              info.frameCount, static_cast<size_t>(maxFrames)));
    return {};
}

// The block ends right before the footer and announces itself by its magic.
Status readStats(int fd, uint64_t fileSize, TachInfo& info) {
    if (fileSize < kHeaderSize) return {};
    uint8_t tail[16]; // magic, version, size
    if (auto s = readExact(fd, tail, sizeof tail, fileSize - kFooterSize - 16); !s) return s;
    if (std::memcmp(tail, stats::Magic, 8) != 0) return {};
    const bool sw = info.byteSwapped;
    const uint32_t version = loadInt<uint32_t>(tail + 8, sw);
    const uint32_t size = loadInt<uint32_t>(tail + 12, sw);
    if (size < 32 || size > fileSize - kFooterSize)
        return corrupt("Invalid profiling statistics size");
    if (version != stats::Version) return {};
    uint8_t block[stats::Size] = {};
    const size_t readSize = std::min<size_t>(size, stats::Size);
    if (auto s = readExact(fd, block, readSize, fileSize - kFooterSize - size); !s) return s;
    TachProfileStats st;
    st.durationSec = loadDouble(block + stats::Duration, sw);
    st.sampleRate = loadDouble(block + stats::Rate, sw);
    if (size >= stats::Size) {
        const uint32_t present = loadInt<uint32_t>(block + stats::Present, sw);
        if (present & stats::HasErrorRate)
            st.errorRatePct = loadDouble(block + stats::ErrorRate, sw);
        if (present & stats::HasMissed) st.missedPct = loadDouble(block + stats::Missed, sw);
    }
    // CPython 3.15.2's reader rejects exactly these (found by feeding it crafted blocks):
    // duration, rate and error rate must be finite and not negative; missed only finite.
    const auto finiteNonNegative = [](double v) { return std::isfinite(v) && !(v < 0); };
    if (!finiteNonNegative(st.durationSec) || !finiteNonNegative(st.sampleRate) ||
        (st.errorRatePct && !finiteNonNegative(*st.errorRatePct)) ||
        (st.missedPct && !std::isfinite(*st.missedPct)))
        return corrupt("Invalid profiling statistics values");
    info.stats = st;
    return {};
}

} // namespace

Result<TachInfo> readLayout(int fd, uint64_t fileSize) {
    TachInfo info;
    info.fileSize = fileSize;
    if (fileSize < kHeaderSize) return corrupt("File too small for header");
    uint8_t header[kHeaderSize];
    if (auto s = readExact(fd, header, sizeof header, 0); !s) return s.error();
    if (auto s = parseHeader(header, info); !s) return s.error();

    if (fileSize < kHeaderSize + kFooterSize) return corrupt("File too small for footer");
    uint8_t footer[kFooterSize];
    if (auto s = readExact(fd, footer, sizeof footer, fileSize - kFooterSize); !s) return s.error();
    info.stringCount = loadInt<uint32_t>(footer + ftr::StringCount, info.byteSwapped);
    info.frameCount = loadInt<uint32_t>(footer + ftr::FrameCount, info.byteSwapped);

    if (auto s = checkOffsets(info, fileSize); !s) return s.error();
    if (auto s = checkCounts(info, fileSize); !s) return s.error();
    if (auto s = readStats(fd, fileSize, info); !s) return s.error();
    return info;
}

} // namespace gilscope::tach
