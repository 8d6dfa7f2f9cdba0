// TachWriter::checkpoint(): a whole `.bin` of the samples so far, beside a writer that
// goes on. The record stream written so far is copied as it is; only its end differs.
#include "core/tach/file_io.h"
#include "core/tach/tach_format.h"
#include "core/tach/tach_writer_impl.h"
#include "core/tach/thread_names_file.h"

#include <cerrno>
#include <unistd.h>
#include <vector>

namespace gilscope {

using namespace tach;

namespace {

// A zstd block header (RFC 8878, 3.1.1.2): last block, raw, zero bytes. It ends a frame
// whose blocks were all flushed (ZSTD_e_flush); the frame has no checksum (CPython's
// writer sets none, and neither do we).
constexpr uint8_t kEmptyLastBlock[3] = {0x01, 0x00, 0x00};

// Copies the first `size` bytes of `from` (read with pread: the writer's own offset is
// left alone) to the end of `to`.
Status copyPrefix(int from, uint64_t size, RecordStream& to) {
    std::vector<uint8_t> buffer(1 << 20);
    for (uint64_t at = 0; at < size;) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), size - at));
        const ssize_t got = ::pread(from, buffer.data(), want, static_cast<off_t>(at));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return makeError(ErrorKind::Io, "cannot read back the recording to flush it");
        if (auto s = to.writeRaw(buffer.data(), size_t(got)); !s) return s;
        at += uint64_t(got);
    }
    return {};
}

} // namespace

Status TachWriter::checkpoint(const std::filesystem::path& destination) {
    Impl& w = *impl_;
    if (w.error) return *w.error;
    if (w.finalized)
        return makeError(ErrorKind::Internal, "TachWriter: checkpoint() after finalize()");
    if (!w.registry || w.stats.totalSamples == 0)
        return makeError(ErrorKind::NoSamples, "no samples were recorded yet");
    // Every sample so far into the file, in whole blocks. A failure here is the writer's.
    for (ThreadEntry& t : w.threads)
        w.flushPending(t);
    if (w.error) return *w.error;
    if (auto s = w.out->flushRecords(); !s) {
        w.fail(s.error());
        return s;
    }
    auto file = AtomicFile::create(destination, {.needsSeek = true});
    if (!file) return file.error();
    RecordStream copy(std::move(*file), /*zstd=*/false); // raw: the bytes are copied as they are
    Status s = copyPrefix(w.out->file().fd(), w.out->position(), copy);
    if (s && w.options.compression == TachCompression::Zstd)
        s = copy.writeRaw(kEmptyLastBlock, sizeof kEmptyLastBlock);
    if (s) s = w.writeEnd(copy);
    if (s) s = copy.file().commit();
    if (!s) {
        copy.file().discard();
        return s;
    }
    const BinSideFacts side = w.sideFacts();
    if (!side.empty() && !copy.file().direct()) {
        std::error_code ec;
        const BinIdentity identity{std::filesystem::file_size(destination, ec),
                                   w.options.startTimeUs.value_or(w.info.startTimeUs),
                                   w.stats.totalSamples};
        if (!ec) (void)writeBinSideFile(destination, identity, side); // costs only the names
    }
    return {};
}

} // namespace gilscope
