#include "core/remote/gc_counts_probe.h"

#include "core/remote/struct_view.h"

// Where each CPython keeps gc.get_stats()'s counts (x86_64, release builds), measured on
// real processes (the bytes equal what gc.get_stats() printed) on 3.8.18, 3.9.18,
// 3.10.13, 3.11.7, Debian's 3.11.2, 3.12.1, 3.13.0, 3.13.15t, 3.14.10 and 3.15.2:
//   3.8-3.14  generation_stats[3] of {collections, collected, uncollectable} Py_ssize_t,
//             right before `int collecting`: 128/200 in the gc state up to 3.13 (3.13t
//             too), 120/192 in 3.14 (its incremental collector of 3.14.0-3.14.4 kept both).
//   3.15      gc.generation_stats points to struct gc_stats: three rings of cumulative
//             64-byte entries (collections at +16, collected at +24), 11 young ones at 0
//             (int8 index at 704), 3 at 712 (904) and 3 at 912 (1104); update_seq (uint32,
//             a seqlock, 3.15.1+) at 1112; 1120 bytes (1112 in 3.15.0). The latest total of
//             generation g is items[index].
namespace gilscope::remote {

namespace {
// Far beyond any real count (a collection a microsecond for a century is ~3e15), and
// beneath where a negative Py_ssize_t would land.
constexpr int64_t kMostPlausible = int64_t{1} << 52;
constexpr uint64_t kInlineStatsBytes = 3 * 24;
static_assert(kGcGenerations == 3);

GcStatsLayout inlineStats() {
    GcStatsLayout s;
    s.entrySize = 24;
    s.collections = 0;
    s.collected = 8;
    for (uint64_t g = 0; g < 3; ++g)
        s.generations[g].items = g * 24;
    s.size = kInlineStatsBytes;
    return s;
}

GcStatsLayout rings315(uint64_t size) {
    GcStatsLayout s;
    s.entrySize = 64;
    s.collections = 16;
    s.collected = 24;
    s.generations[0] = {0, 11, 704};
    s.generations[1] = {712, 3, 904};
    s.generations[2] = {912, 3, 1104};
    s.size = size;
    if (size >= 1120) s.seq = 1112;
    s.behindPointer = true;
    return s;
}

} // namespace

bool GcStatsLayout::valid() const {
    if (entrySize < 16 || !fits(collections, 8, entrySize) || !fits(collected, 8, entrySize))
        return false;
    if (size > 4096 || (seq != kAbsent && !fits(seq, 4, size))) return false;
    for (const Generation& g : generations) {
        if (g.entries == 0 || g.entries > 64 || !fits(g.items, g.entries * entrySize, size))
            return false;
        if (g.entries > 1 && !fits(g.index, 1, size)) return false;
    }
    return true;
}

void locateInlineGcStats(PythonLayout& l) {
    l.gcStats = inlineStats();
    if (l.rtGcCollecting != kAbsent) l.rtGcStats = l.rtGcCollecting - kInlineStatsBytes;
    if (l.inGcCollecting != kAbsent) l.inGcStats = l.inGcCollecting - kInlineStatsBytes;
}

void locateGcStatsFromDebugOffsets(PythonLayout& l, uint64_t gc, uint64_t collecting,
                                   uint64_t statsField, uint64_t statsSize) {
    const uint64_t measured = l.minor == 13 ? 128 : l.minor == 14 ? 120 : 0;
    if (measured) {
        // Only the build measured: its `collecting` right after the stats.
        if (collecting != measured + kInlineStatsBytes) return;
        l.gcStats = inlineStats();
        l.inGcStats = gc + measured;
    } else if (l.minor == 15 && !l.freeThreaded && (statsSize == 1112 || statsSize == 1120)) {
        l.gcStats = rings315(statsSize);
        l.inGcStats = gc + statsField;
    }
}

GcCountsProbe::GcCountsProbe(std::unique_ptr<ProcessMemory> memory, uint64_t statsAddr,
                             const GcStatsLayout& layout)
    : memory_(std::move(memory)), statsAddr_(statsAddr), layout_(layout) {
}

bool GcCountsProbe::readCounts(ProcessCounters& got) {
    if (!layout_.valid()) return false;
    uint64_t addr = statsAddr_;
    if (layout_.behindPointer && (!memory_->readValue(statsAddr_, addr) || addr == 0)) return false;
    // A seqlock: its count before the copy, and the copy's own (read last, at its end).
    uint32_t seqBefore = 0;
    if (layout_.seq != kAbsent &&
        (!memory_->readValue(addr + layout_.seq, seqBefore) || (seqBefore & 1)))
        return false;
    copy_.resize(layout_.size);
    if (!memory_->read(addr, copy_.data(), copy_.size())) return false;
    const StructView view(copy_);
    if (layout_.seq != kAbsent && view.get<uint32_t>(layout_.seq) != seqBefore) return false;
    got.gcCollected = 0;
    for (size_t g = 0; g < kGcGenerations; ++g) {
        const GcStatsLayout::Generation& gen = layout_.generations[g];
        uint64_t slot = 0;
        if (gen.entries > 1) {
            const auto index = view.get<int8_t>(gen.index);
            if (!index || *index < 0 || uint64_t(*index) >= gen.entries) return false;
            slot = uint64_t(*index);
        }
        const uint64_t entry = gen.items + slot * layout_.entrySize;
        const auto collections = view.get<int64_t>(entry + layout_.collections);
        const auto collected = view.get<int64_t>(entry + layout_.collected);
        if (!collections || !collected || *collections < 0 || *collections > kMostPlausible ||
            *collected < 0 || *collected > kMostPlausible)
            return false;
        got.gcCollections[g] = uint64_t(*collections);
        got.gcCollected += uint64_t(*collected);
    }
    return true;
}

void GcCountsProbe::fill(ProcessCounters& reading) {
    reading.gcKnown = false;
    ProcessCounters got;
    if (!readCounts(got)) return;
    if (haveLast_) {
        // Running totals never go back: one that does was read mid-write or is a lie.
        for (size_t g = 0; g < kGcGenerations; ++g)
            if (got.gcCollections[g] < last_.gcCollections[g]) return;
        if (got.gcCollected < last_.gcCollected) return;
    }
    haveLast_ = true;
    last_ = got;
    reading.gcKnown = true;
    reading.gcCollections = got.gcCollections;
    reading.gcCollected = got.gcCollected;
}

std::unique_ptr<CounterProbe> makeGcCountsProbe(int pid, const PythonLayout& layout,
                                                uint64_t runtimeAddr, uint64_t mainInterpAddr) {
    if (!layout.gcStats.valid()) return nullptr;
    uint64_t addr = 0;
    if (layout.rtGcStats != kAbsent && runtimeAddr)
        addr = runtimeAddr + layout.rtGcStats;
    else if (layout.inGcStats != kAbsent && mainInterpAddr)
        addr = mainInterpAddr + layout.inGcStats;
    if (!addr) return nullptr;
    return std::make_unique<GcCountsProbe>(std::make_unique<RemoteMemory>(pid), addr,
                                           layout.gcStats);
}

} // namespace gilscope::remote
