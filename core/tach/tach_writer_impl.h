#pragma once

// TachWriter's private state, shared by tach_writer.cpp (sample path) and
// tach_writer_finalize.cpp (tables, footer, header) and tach_writer_checkpoint.cpp.
#include "core/tach/record_stream.h"
#include "core/tach/tach_writer.h"
#include "core/tach/thread_names_file.h"

#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gilscope {

namespace tach {

inline constexpr uint32_t kUnmapped = UINT32_MAX;

struct ThreadEntry {
    uint64_t threadId = 0;
    uint32_t interpreterId = 0;
    uint64_t prevTimestamp = 0;
    std::vector<uint32_t> prevStack; // file frame indices, leaf first
    std::vector<uint8_t> pending;    // deferred run-length entries: varint delta + status
    uint32_t pendingCount = 0;
};

struct ThreadKeyHash {
    size_t operator()(const std::pair<uint64_t, uint32_t>& k) const noexcept {
        return std::hash<uint64_t>()(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
    }
};

} // namespace tach

struct TachWriter::Impl {
    TachWriterOptions options;
    std::optional<tach::RecordStream> out;
    const FrameRegistry* registry = nullptr;
    RecordingInfo info;
    std::optional<RecordingSummary> summary;

    // Interning in first-use order: registry id -> file index, and back.
    IdVector<StringId, uint32_t> stringIndex;
    IdVector<FrameId, uint32_t> frameIndex;
    std::vector<StringId> fileStrings;
    std::vector<FrameId> fileFrames;

    std::vector<tach::ThreadEntry> threads;
    std::unordered_map<std::pair<uint64_t, uint32_t>, size_t, tach::ThreadKeyHash> threadIndex;
    std::vector<uint32_t> current;
    TachRecordStats stats;
    std::map<uint64_t, std::string> threadNames; // nameThread(): for the side file
    std::vector<Marker> markers;                 // addMarker(): for the side file too
    CounterSeries counters;                      // addCounters(): for the side file too
    bool nativeFrames = false;                   // writeFrames() wrote a C frame
    std::optional<Error> error;
    bool finalized = false;

    void fail(Error e) {
        if (!error) error = std::move(e);
    }
    uint32_t internString(StringId id);
    uint32_t internFrame(FrameId id);
    tach::ThreadEntry& thread(uint64_t threadId, uint32_t interpreterId);
    void sample(tach::ThreadEntry& t, uint8_t status, uint64_t timestampUs, bool stackKnownSame);
    void writeStackRecord(tach::ThreadEntry& t, uint8_t status, uint64_t delta);
    void flushPending(tach::ThreadEntry& t);
    uint8_t* reserve(size_t size);
    Status finalizeFile();
    // The tables, footer and header, after the record stream in `to` (the file's own
    // output, or a checkpoint's copy of it).
    Status writeEnd(tach::RecordStream& to);
    Status writeStrings(tach::RecordStream& to);
    Status writeFrames(tach::RecordStream& to);
    Status writeStatsAndFooter(tach::RecordStream& to);
    Status writeHeader(tach::RecordStream& to, uint64_t stringTableOffset,
                       uint64_t frameTableOffset);
    BinSideFacts sideFacts() const;
};

} // namespace gilscope
