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

bool FrameWalker::walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out,
                       Prefetch* ahead) {
    error_.clear();
    // The frame chain remembered for this thread (with -a, every thread has its own).
    if (layout_.legacyFrames) return walkLegacy(tstate, out, ahead ? *ahead : ownAhead_);
    ahead_ = ahead;
    singlesThisWalk_.clear();
    const bool ok = walkModern(tstate, out);
    if (ahead) {
        dropPrefetch(*ahead); // what was read ahead served this walk only
        ahead->frames = singlesThisWalk_;
    }
    ahead_ = nullptr;
    return ok;
}

void FrameWalker::dropPrefetch(Prefetch& pf) {
    pf.chunkOk = pf.cframeOk = false;
    pf.framesOk = 0;
}

size_t FrameWalker::planPrefetch(Prefetch& pf, std::vector<iovec>& local,
                                 std::vector<iovec>& remote) {
    dropPrefetch(pf); // nothing of an earlier batch may be taken for this one
    if (layout_.legacyFrames) return 0;
    size_t planned = 0;
    // Order: small ranges first, the chunk (the likeliest to have gone) last, since a
    // failed range ends the batch.
    if (pf.cframeWordAddr) {
        local.push_back({&pf.cframeWord, sizeof pf.cframeWord});
        remote.push_back({reinterpret_cast<void*>(pf.cframeWordAddr), sizeof pf.cframeWord});
        ++planned;
    }
    const size_t frSize = layout_.frSize;
    pf.frameBytes.resize(pf.frames.size() * frSize);
    for (size_t i = 0; i < pf.frames.size(); ++i) {
        local.push_back({pf.frameBytes.data() + i * frSize, frSize});
        remote.push_back({reinterpret_cast<void*>(pf.frames[i]), frSize});
        ++planned;
    }
    if (pf.chunkLen) {
        pf.chunkBytes.resize(pf.chunkLen);
        local.push_back({pf.chunkBytes.data(), pf.chunkLen});
        remote.push_back({reinterpret_cast<void*>(pf.chunkAddr), pf.chunkLen});
        ++planned;
    }
    return planned;
}

void FrameWalker::prefetchArrived(Prefetch& pf, size_t complete) {
    // The planned ranges, in planPrefetch's order; the first `complete` of them arrived.
    size_t next = 0;
    auto arrived = [&] { return next++ < complete; };
    pf.cframeOk = pf.cframeWordAddr && arrived();
    pf.framesOk = 0;
    for (size_t k = 0; k < pf.frames.size(); ++k)
        if (arrived()) ++pf.framesOk;
    pf.chunkOk = pf.chunkLen && arrived();
}

void FrameWalker::learnPrefetch(uint64_t chunk, uint64_t used, uint64_t cframeWord) {
    // Room for the stack to grow a little before the next sample, within the chunk.
    constexpr uint64_t kSlack = 1024;
    uint64_t len = 0;
    if (chunk && !chunks_.empty() && chunks_[0].bytes.size() >= kChunkHeader) {
        const uint64_t size = at<uint64_t>(chunks_[0].bytes.data(), 8);
        if (size >= used && size <= kMaxChunkBytes) len = std::min(size, used + kSlack);
    }
    ahead_->chunkAddr = len ? chunk : 0;
    ahead_->chunkLen = len;
    ahead_->cframeWordAddr = cframeWord;
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
    if (ahead_) {
        // Remembered whether it came from the prefetch or not: wanted again next time.
        if (singlesThisWalk_.size() < Prefetch::kMaxFrames) singlesThisWalk_.push_back(addr);
        for (size_t i = 0; i < ahead_->framesOk; ++i)
            if (ahead_->frames[i] == addr) return ahead_->frameBytes.data() + i * need;
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
    const uint64_t used = haveChunk ? top - chunk : 0;
    bool chunkKnown = false;
    if (haveChunk) {
        current.addr = chunk;
        if (ahead_ && ahead_->chunkOk && ahead_->chunkAddr == chunk && used <= ahead_->chunkLen) {
            current.bytes.swap(ahead_->chunkBytes); // read ahead with the thread state
            chunkKnown = true;
        }
        current.bytes.resize(used);
    }
    // One syscall for what was not read ahead: the current frame pointer (3.11/3.12 keep
    // it in the C-stack cframe) and the whole used part of the current chunk.
    iovec local[2], remote[2];
    size_t n = 0;
    uint64_t cframeWord = 0;
    if (layout_.tsCframe != kAbsent) {
        const uint64_t cframe = at<uint64_t>(t, layout_.tsCframe);
        if (!plausibleAddress(cframe)) return true; // thread not running Python yet
        cframeWord = cframe + layout_.cfCurrentFrame;
        if (ahead_ && ahead_->cframeOk && ahead_->cframeWordAddr == cframeWord) {
            frame = ahead_->cframeWord;
        } else {
            local[n] = {&frame, sizeof frame};
            remote[n++] = {reinterpret_cast<void*>(cframeWord), sizeof frame};
        }
    } else {
        frame = at<uint64_t>(t, layout_.tsCurrentFrame);
    }
    const bool chunkInBatch = haveChunk && !chunkKnown;
    if (chunkInBatch) {
        local[n] = {current.bytes.data(), current.bytes.size()};
        remote[n++] = {reinterpret_cast<void*>(chunk), current.bytes.size()};
    }
    if (n > 0) {
        const size_t done = mem_.readMany({local, n}, {remote, n});
        if (done < n) {
            if (done < n - (chunkInBatch ? 1 : 0)) return fail("cannot read the current frame");
            current.bytes.resize(0); // chunk unreadable: fall back to single reads
        }
    }
    if (haveChunk && current.bytes.size() >= kChunkHeader) {
        chunksUsed_ = 1;
        olderChunk_ = at<uint64_t>(current.bytes.data(), 0);
    }
    if (ahead_) learnPrefetch(haveChunk ? chunk : 0, used, cframeWord);

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
        if (info->interpreterShim) {
            frame = previous;
            continue;
        }
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

bool FrameWalker::addLegacyFrame(uint64_t addr, const uint8_t* f, uint64_t& previous, bool seen) {
    previous = at<uint64_t>(f, layout_.frPrevious);
    if (previous == addr) return fail("frame chain loops");
    const uint64_t code = at<uint64_t>(f, layout_.frCode);
    legacy_.push_back({code, at<int32_t>(f, layout_.frLasti), seen});
    chain_.push_back(addr);
    chainCodes_.push_back(code);
    return true;
}

bool FrameWalker::readLegacyChain(uint64_t frame, const Prefetch& remembered) {
    const std::vector<uint64_t>& lastChain = remembered.chain;
    const size_t frSize = layout_.frSize;
    constexpr size_t kIovMax = 1024;
    // A chain that is all new would cost a search per frame; give up searching soon.
    constexpr int kMaxMisses = 8;
    legacy_.clear();
    chain_.clear();
    chainCodes_.clear();
    size_t hint = 0; // where in lastChain the next frame is expected
    int misses = 0;
    while (frame != 0 && legacy_.size() < kMaxDepth) { // capped, as CPython does
        if (!plausibleAddress(frame) || (frame & 7)) return fail("invalid frame pointer");
        // Usually the chain below this frame is the one we saw last sample: read that
        // stretch in one call and keep its frames while each one's f_back still leads to
        // the next (a link that no longer holds ends the stretch, as a torn read would).
        size_t k = hint;
        if (k >= lastChain.size() || lastChain[k] != frame) {
            k = misses < kMaxMisses
                    ? static_cast<size_t>(std::find(lastChain.begin(), lastChain.end(), frame) -
                                          lastChain.begin())
                    : lastChain.size();
            if (k == lastChain.size()) ++misses;
        }
        const size_t n = k < lastChain.size()
                             ? std::min({kIovMax, lastChain.size() - k, kMaxDepth - legacy_.size()})
                             : 0;
        size_t added = 0;
        if (n >= 2) {
            chainCopies_.resize(n * frSize);
            local_.resize(n);
            remote_.resize(n);
            for (size_t j = 0; j < n; ++j) {
                local_[j] = {chainCopies_.data() + j * frSize, frSize};
                remote_[j] = {reinterpret_cast<void*>(lastChain[k + j]), frSize};
            }
            const size_t done = mem_.readMany({local_.data(), n}, {remote_.data(), n});
            while (added < done) {
                uint64_t previous = 0;
                const uint8_t* f = chainCopies_.data() + added * frSize;
                const bool seen =
                    at<uint64_t>(f, layout_.frCode) == remembered.chainCodes[k + added];
                if (!addLegacyFrame(frame, f, previous, seen)) return false;
                frame = previous;
                ++added;
                if (added < n && frame != lastChain[k + added]) break; // the chain changed
            }
        }
        if (added > 0) {
            hint = k + added;
            continue;
        }
        single_.resize(frSize);
        if (!mem_.read(frame, single_.data(), frSize)) return fail("cannot read a frame");
        uint64_t previous = 0;
        if (!addLegacyFrame(frame, single_.data(), previous, false)) return false;
        frame = previous;
        hint = k < lastChain.size() ? k + 1 : hint;
    }
    return true;
}

bool FrameWalker::walkLegacy(std::span<const uint8_t> ts, std::vector<FrameId>& out,
                             Prefetch& remembered) {
    // Pass 1: follow the PyFrameObject chain (each frame needs the previous pointer).
    const bool ok = readLegacyChain(at<uint64_t>(ts.data(), layout_.tsFrame), remembered);
    remembered.chain.swap(chain_);
    remembered.chainCodes.swap(chainCodes_);
    if (!ok) return false;
    // Pass 2: fresh copies of their code objects in one call, so that a cache hit can be
    // checked against the object now at that address (addresses get reused). Frames
    // unchanged since the last sample keep their code object alive: no copy needed.
    const size_t coSize = layout_.coSize;
    copySlot_.assign(legacy_.size(), kNoSlot);
    local_.clear();
    remote_.clear();
    for (size_t i = 0; i < legacy_.size(); ++i) {
        if (legacy_[i].seen && codes_.contains(legacy_[i].code)) continue;
        copySlot_[i] = remote_.size();
        remote_.push_back({reinterpret_cast<void*>(legacy_[i].code), coSize});
    }
    codeCopies_.resize(remote_.size() * coSize);
    for (size_t j = 0; j < remote_.size(); ++j)
        local_.push_back({codeCopies_.data() + j * coSize, coSize});
    constexpr size_t kIovMax = 1024;
    for (size_t j = 0; j < remote_.size();) {
        const size_t n = std::min(kIovMax, remote_.size() - j);
        const size_t done = mem_.readMany({local_.data() + j, n}, {remote_.data() + j, n});
        if (done == n) {
            j += n;
            continue;
        }
        j += done; // the one that failed: read it alone (it may be unmapped: torn read)
        const uint64_t code = reinterpret_cast<uint64_t>(remote_[j].iov_base);
        if (!plausibleAddress(code) || !mem_.read(code, codeCopies_.data() + j * coSize, coSize))
            return fail("cannot read a code object");
        ++j;
    }
    for (size_t i = 0; i < legacy_.size(); ++i) {
        // Each entry is used before the next lookup, which may evict it.
        const CodeInfo* info =
            copySlot_[i] == kNoSlot ? codes_.lookupKnown(legacy_[i].code) : nullptr;
        if (!info) {
            std::span<const uint8_t> copy;
            if (copySlot_[i] != kNoSlot) {
                copy = {codeCopies_.data() + copySlot_[i] * coSize, coSize};
            } else { // due for revalidation, or evicted meanwhile
                single_.resize(coSize);
                if (!mem_.read(legacy_[i].code, single_.data(), coSize))
                    return fail("cannot read a code object");
                copy = single_;
            }
            info = codes_.lookupChecked(legacy_[i].code, copy);
        }
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
