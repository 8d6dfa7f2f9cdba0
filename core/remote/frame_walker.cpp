#include "core/remote/frame_walker.h"

#include <algorithm>
#include <cstring>

namespace gilscope::remote {

namespace {

template <typename T>
T at(const uint8_t* p, uint64_t off) {
    T v;
    std::memcpy(&v, p + off, sizeof v);
    return v;
}

constexpr uint64_t kChunkHeader = 24;          // _PyStackChunk {previous, size, top, data[]}
constexpr uint64_t kMaxChunkBytes = 16u << 20; // CPython's MAX_STACK_CHUNK_SIZE
constexpr uint64_t kDefaultChunk = 16u << 10;  // DATA_STACK_CHUNK_SIZE
constexpr size_t kMaxChunks = 64;

} // namespace

FrameWalker::FrameWalker(RemoteMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
                         CodeCache& codes, bool opcodes)
    : mem_(mem), layout_(layout), registry_(registry), codes_(codes), opcodes_(opcodes) {
}

bool FrameWalker::fail(std::string why) {
    error_ = std::move(why);
    return false;
}

bool FrameWalker::walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out) {
    error_.clear();
    return layout_.legacyFrames ? walkLegacy(tstate, out) : walkModern(tstate, out);
}

bool FrameWalker::loadOlderChunk() {
    if (olderChunk_ == 0 || chunksUsed_ >= kMaxChunks) return false;
    if (!plausibleAddress(olderChunk_)) return false;
    if (chunks_.size() <= chunksUsed_) chunks_.emplace_back();
    Chunk& c = chunks_[chunksUsed_];
    c.addr = olderChunk_;
    c.bytes.resize(kDefaultChunk);
    const size_t got = mem_.readPartial(c.addr, c.bytes.data(), c.bytes.size());
    if (got < kChunkHeader) return false;
    const uint64_t size = at<uint64_t>(c.bytes.data(), 8);
    if (size < kChunkHeader || size > kMaxChunkBytes) return false;
    if (size > got) {
        c.bytes.resize(size);
        if (!mem_.read(c.addr, c.bytes.data(), size)) return false;
    }
    c.bytes.resize(size);
    olderChunk_ = at<uint64_t>(c.bytes.data(), 0);
    ++chunksUsed_;
    return true;
}

const uint8_t* FrameWalker::frameBytes(uint64_t addr) {
    const uint64_t need = layout_.frSize;
    for (;;) {
        for (size_t i = 0; i < chunksUsed_; ++i) {
            const Chunk& c = chunks_[i];
            if (addr >= c.addr + kChunkHeader && addr + need <= c.addr + c.bytes.size())
                return c.bytes.data() + (addr - c.addr);
        }
        // A frame below the copied chunks lives in an older chunk (deep recursion) or
        // in a generator; try the older chunks first, they hold many frames each.
        if (!loadOlderChunk()) break;
    }
    single_.resize(need);
    if (!mem_.read(addr, single_.data(), need)) return nullptr;
    return single_.data();
}

bool FrameWalker::walkModern(std::span<const uint8_t> ts, std::vector<FrameId>& out) {
    const uint8_t* t = ts.data();
    uint64_t frame = 0;
    const uint64_t chunk = at<uint64_t>(t, layout_.tsDatastackChunk);
    const uint64_t top = at<uint64_t>(t, layout_.tsDatastackTop);
    chunksUsed_ = 0;
    olderChunk_ = 0;
    const bool haveChunk =
        plausibleAddress(chunk) && top > chunk + kChunkHeader && top - chunk <= kMaxChunkBytes;
    if (chunks_.empty()) chunks_.emplace_back();
    Chunk& current = chunks_[0];
    if (haveChunk) {
        current.addr = chunk;
        current.bytes.resize(top - chunk);
    }
    // One syscall: the current frame pointer (3.11/3.12 keep it in the C-stack cframe)
    // together with the whole used part of the current chunk.
    iovec local[2], remote[2];
    size_t n = 0;
    if (layout_.tsCframe != kAbsent) {
        const uint64_t cframe = at<uint64_t>(t, layout_.tsCframe);
        if (!plausibleAddress(cframe)) return true; // thread not running Python yet
        local[n] = {&frame, sizeof frame};
        remote[n++] = {reinterpret_cast<void*>(cframe + layout_.cfCurrentFrame), sizeof frame};
    } else {
        frame = at<uint64_t>(t, layout_.tsCurrentFrame);
    }
    if (haveChunk) {
        local[n] = {current.bytes.data(), current.bytes.size()};
        remote[n++] = {reinterpret_cast<void*>(chunk), current.bytes.size()};
    }
    if (n > 0) {
        const size_t done = mem_.readMany({local, n}, {remote, n});
        if (done < n) {
            if (done < n - (haveChunk ? 1 : 0)) return fail("cannot read the current frame");
            current.bytes.resize(0); // chunk unreadable: fall back to single reads
        }
    }
    if (haveChunk && current.bytes.size() >= kChunkHeader) {
        chunksUsed_ = 1;
        olderChunk_ = at<uint64_t>(current.bytes.data(), 0);
    }

    const uint8_t skipOwner = static_cast<uint8_t>(layout_.firstSkippedOwner);
    const size_t first = out.size();
    for (size_t steps = 0; frame != 0; ++steps) {
        if (out.size() - first >= kMaxDepth) return true; // capped, as CPython does
        if (steps >= 2 * kMaxDepth) return fail("frame chain too long (torn read?)");
        if (!plausibleAddress(frame) || (frame & 7)) return fail("invalid frame pointer");
        const uint8_t* f = frameBytes(frame);
        if (!f) return fail("cannot read a frame");
        const uint64_t previous = at<uint64_t>(f, layout_.frPrevious);
        if (at<uint8_t>(f, layout_.frOwner) >= skipOwner) { // interpreter shim frame
            frame = previous;
            continue;
        }
        const uint64_t code = at<uint64_t>(f, layout_.frCode) & layout_.frameTagMask;
        const uint64_t instr = at<uint64_t>(f, layout_.frInstr);
        if (code == 0) { // frame being set up or torn down
            frame = previous;
            continue;
        }
        const CodeInfo* info = codes_.lookup(code, instr);
        if (!info) return fail("cannot read a code object");
        FrameInfo fi{info->filename, info->funcname};
        const int64_t offset = static_cast<int64_t>(instr - info->bytecodeAddr);
        if (offset < 0) { // not started yet: CPython reports the first line
            fi.line = fi.endLine = info->firstLine;
        } else {
            const SourceLocation loc = codes_.location(*info, offset);
            fi.line = loc.line;
            fi.endLine = loc.endLine;
            fi.column = loc.column;
            fi.endColumn = loc.endColumn;
            if (opcodes_ && static_cast<uint64_t>(offset) < info->bytecode.size())
                fi.opcode = info->bytecode[static_cast<size_t>(offset) & ~size_t{1}];
        }
        out.push_back(registry_.internFrame(fi));
        if (previous == frame) return fail("frame chain loops");
        frame = previous;
    }
    return true;
}

bool FrameWalker::walkLegacy(std::span<const uint8_t> ts, std::vector<FrameId>& out) {
    // Pass 1: follow the PyFrameObject chain (each frame needs the previous pointer).
    uint64_t frame = at<uint64_t>(ts.data(), layout_.tsFrame);
    single_.resize(layout_.frSize);
    legacy_.clear();
    while (frame != 0 && legacy_.size() < kMaxDepth) { // capped, as CPython does
        if (!plausibleAddress(frame) || (frame & 7)) return fail("invalid frame pointer");
        if (!mem_.read(frame, single_.data(), single_.size())) return fail("cannot read a frame");
        const uint8_t* f = single_.data();
        const uint64_t previous = at<uint64_t>(f, layout_.frPrevious);
        legacy_.push_back({at<uint64_t>(f, layout_.frCode), at<int32_t>(f, layout_.frLasti)});
        if (previous == frame) return fail("frame chain loops");
        frame = previous;
    }
    // Pass 2: fresh copies of all their code objects in one call, so that a cache hit can
    // be checked against the object now at that address (addresses get reused).
    const size_t coSize = layout_.coSize;
    codeCopies_.resize(legacy_.size() * coSize);
    local_.resize(legacy_.size());
    remote_.resize(legacy_.size());
    for (size_t i = 0; i < legacy_.size(); ++i) {
        local_[i] = {codeCopies_.data() + i * coSize, coSize};
        remote_[i] = {reinterpret_cast<void*>(legacy_[i].code), coSize};
    }
    constexpr size_t kIovMax = 1024;
    for (size_t i = 0; i < legacy_.size();) {
        const size_t n = std::min(kIovMax, legacy_.size() - i);
        const size_t done = mem_.readMany({local_.data() + i, n}, {remote_.data() + i, n});
        if (done == n) {
            i += n;
            continue;
        }
        i += done; // the one that failed: read it alone (it may be unmapped: torn read)
        if (!plausibleAddress(legacy_[i].code) ||
            !mem_.read(legacy_[i].code, codeCopies_.data() + i * coSize, coSize))
            return fail("cannot read a code object");
        ++i;
    }
    for (size_t i = 0; i < legacy_.size(); ++i) {
        const CodeInfo* info =
            codes_.lookupChecked(legacy_[i].code, {codeCopies_.data() + i * coSize, coSize});
        if (!info) return fail("cannot read a code object");
        // f_lasti counts bytes in 3.8/3.9 and code units in 3.10.
        const int32_t lasti = legacy_[i].lasti;
        const int64_t offset = layout_.minor >= 10 ? int64_t{lasti} * 2 : lasti;
        if (offset >= static_cast<int64_t>(info->bytecodeSize))
            return fail("instruction offset outside its code object");
        FrameInfo fi{info->filename, info->funcname};
        if (offset < 0) {
            fi.line = fi.endLine = info->firstLine;
        } else {
            const SourceLocation loc = codes_.location(*info, offset);
            fi.line = fi.endLine = loc.line;
            if (opcodes_ && static_cast<uint64_t>(offset) < info->bytecode.size())
                fi.opcode = info->bytecode[static_cast<size_t>(offset)];
        }
        out.push_back(registry_.internFrame(fi));
    }
    return true;
}

} // namespace gilscope::remote
