// TachWriter::finalize(): CPython's finalize order — pending runs (thread-creation
// order), end of the record stream, string table, frame table, optional TACHSTAT
// block, footer, then the header over the placeholder, then the atomic rename.
#include "core/tach/file_io.h"
#include "core/tach/tach_format.h"
#include "core/tach/tach_writer_impl.h"
#include "core/tach/thread_names_file.h"
#include "core/tach/varint.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

namespace gilscope {

using namespace tach;

namespace {

// Collects small table entries and writes them in 64 KiB pieces.
class TableBuffer {
public:
    explicit TableBuffer(RecordStream& out) : out_(out) {}
    void varint(uint64_t v) {
        uint8_t tmp[kMaxVarintSize];
        bytes_.append(reinterpret_cast<const char*>(tmp), encodeVarint(v, tmp));
    }
    void raw(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
    Status maybeFlush() { return bytes_.size() >= 64 * 1024 ? flush() : Status{}; }
    Status flush() {
        Status s = out_.writeRaw(bytes_.data(), bytes_.size());
        bytes_.clear();
        return s;
    }

private:
    RecordStream& out_;
    std::string bytes_;
};

int32_t endDelta(int32_t start, int32_t end) {
    if (start == -1 || end == -1) return 0;
    return static_cast<int32_t>(static_cast<uint32_t>(end) - static_cast<uint32_t>(start));
}

} // namespace

Status TachWriter::Impl::writeStrings(RecordStream& to) {
    TableBuffer table(to);
    for (StringId id : fileStrings) {
        const std::string& s = registry->string(id);
        table.varint(s.size());
        table.raw(s.data(), s.size());
        if (auto st = table.maybeFlush(); !st) return st;
    }
    return table.flush();
}

Status TachWriter::Impl::writeFrames(RecordStream& to) {
    TableBuffer table(to);
    for (FrameId id : fileFrames) {
        const FrameInfo& f = registry->frame(id);
        table.varint(stringIndex[f.filename]);
        table.varint(stringIndex[f.funcname]);
        table.varint(zigzagEncode(f.line));
        table.varint(zigzagEncode(endDelta(f.line, f.endLine)));
        table.varint(zigzagEncode(f.column));
        table.varint(zigzagEncode(endDelta(f.column, f.endColumn)));
        table.raw(&f.opcode, 1);
        nativeFrames |= f.native;
        if (auto st = table.maybeFlush(); !st) return st;
    }
    return table.flush();
}

Status TachWriter::Impl::writeStatsAndFooter(RecordStream& to) {
    if (summary) {
        uint8_t block[stats::Size] = {};
        storeLe<uint64_t>(block + stats::Duration, std::bit_cast<uint64_t>(summary->durationSec));
        storeLe<uint64_t>(block + stats::Rate, std::bit_cast<uint64_t>(summary->sampleRate));
        uint32_t present = 0;
        if (summary->hasErrorRate) {
            storeLe<uint64_t>(block + stats::ErrorRate,
                              std::bit_cast<uint64_t>(summary->errorRatePct));
            present |= stats::HasErrorRate;
        }
        if (summary->hasMissed) {
            storeLe<uint64_t>(block + stats::Missed, std::bit_cast<uint64_t>(summary->missedPct));
            present |= stats::HasMissed;
        }
        storeLe<uint32_t>(block + stats::Present, present);
        std::memcpy(block + stats::MagicOff, stats::Magic, sizeof stats::Magic);
        storeLe<uint32_t>(block + stats::VersionOff, stats::Version);
        storeLe<uint32_t>(block + stats::SizeOff, static_cast<uint32_t>(stats::Size));
        if (auto s = to.writeRaw(block, sizeof block); !s) return s;
    }
    uint8_t footer[kFooterSize] = {};
    storeLe<uint32_t>(footer + ftr::StringCount, static_cast<uint32_t>(fileStrings.size()));
    storeLe<uint32_t>(footer + ftr::FrameCount, static_cast<uint32_t>(fileFrames.size()));
    storeLe<uint64_t>(footer + ftr::FileSize, to.position() + kFooterSize);
    return to.writeRaw(footer, sizeof footer);
}

Status TachWriter::Impl::writeHeader(RecordStream& to, uint64_t stringTableOffset,
                                     uint64_t frameTableOffset) {
    uint8_t h[kHeaderSize] = {};
    storeLe<uint32_t>(h + hdr::Magic, kMagic);
    storeLe<uint32_t>(h + hdr::Version, kFormatVersion);
    std::array<uint8_t, 3> version{info.pythonMajor, info.pythonMinor, info.pythonMicro};
    if (options.pythonVersion)
        version = *options.pythonVersion;
    else if (version == std::array<uint8_t, 3>{0, 0, 0})
        version = {kPythonMajor, kPythonMinor, kPythonMicro};
    h[hdr::PyMajor] = version[0];
    h[hdr::PyMinor] = version[1];
    h[hdr::PyMicro] = version[2];
    storeLe<uint64_t>(h + hdr::StartTime, options.startTimeUs.value_or(info.startTimeUs));
    storeLe<uint64_t>(h + hdr::Interval, options.sampleIntervalUs.value_or(info.sampleIntervalUs));
    storeLe<uint64_t>(h + hdr::SampleCount, stats.totalSamples);
    storeLe<uint32_t>(h + hdr::ThreadCount, static_cast<uint32_t>(threads.size()));
    storeLe<uint64_t>(h + hdr::StringTable, stringTableOffset);
    storeLe<uint64_t>(h + hdr::FrameTable, frameTableOffset);
    storeLe<uint32_t>(h + hdr::Compression, options.compression == TachCompression::Zstd ? 1u : 0u);
    const int mode = options.mode.value_or(info.mode);
    const int features = options.captureFeatures.value_or(info.captureFeatures);
    uint32_t config = static_cast<uint32_t>(std::clamp(mode, -1, 4) + 1);
    if (features >= 0)
        config |= kConfigFeaturesKnown |
                  ((static_cast<uint32_t>(features) & kConfigFeaturesMask) << kConfigFeaturesShift);
    storeLe<uint32_t>(h + hdr::Config, config);
    return to.file().pwrite(h, sizeof h, 0);
}

Status TachWriter::Impl::writeEnd(RecordStream& to) {
    const uint64_t stringTableOffset = to.position();
    if (auto s = writeStrings(to); !s) return s;
    const uint64_t frameTableOffset = to.position();
    if (auto s = writeFrames(to); !s) return s;
    if (auto s = writeStatsAndFooter(to); !s) return s;
    return writeHeader(to, stringTableOffset, frameTableOffset);
}

BinSideFacts TachWriter::Impl::sideFacts() const {
    BinSideFacts side;
    side.names = threadNames;
    side.freeThreaded = info.freeThreaded;
    side.cpus = info.cpus;
    side.nativeFrames = nativeFrames;
    side.markers = markers;
    side.counters = counters.readings();
    return side;
}

Status TachWriter::finalize() {
    Impl& w = *impl_;
    if (w.finalized) return makeError(ErrorKind::Internal, "TachWriter: finalize() called twice");
    w.finalized = true;
    Status s = w.finalizeFile();
    if (!s) {
        w.fail(s.error());
        w.out->file().discard();
    }
    return s;
}

Status TachWriter::Impl::finalizeFile() {
    if (error) return *error;
    FrameRegistry empty;
    if (!registry) registry = &empty; // nothing was recorded: empty tables
    for (ThreadEntry& t : threads)
        flushPending(t);
    if (error) return *error;
    if (auto s = out->endRecords(); !s) return s;
    if (auto s = writeEnd(*out); !s) return s;
    const bool besideAFile = !out->file().direct() && !out->file().isStdout();
    const std::filesystem::path destination = out->file().destination();
    Status committed = out->file().commit();
    if (registry == &empty) registry = nullptr;
    const BinSideFacts side = sideFacts();
    if (committed && besideAFile && !side.empty()) {
        std::error_code ec;
        const BinIdentity identity{std::filesystem::file_size(destination, ec),
                                   options.startTimeUs.value_or(info.startTimeUs),
                                   stats.totalSamples};
        // The recording is whole without its names: a side file that cannot be written
        // (a read-only directory beside a writable file) costs only the names.
        if (!ec) (void)writeBinSideFile(destination, identity, side);
    }
    return committed;
}

} // namespace gilscope
