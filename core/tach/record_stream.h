#pragma once

#include "core/common/error.h"
#include "core/util/atomic_file.h"

#include <cstdint>
#include <memory>
#include <vector>

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace gilscope::tach {

// The writer's output file: a fixed-size record buffer that, when full, goes to disk
// raw or through one streaming zstd frame (level 5, no other parameters, like
// CPython's writer). Memory stays at two fixed buffers however long the recording.
class RecordStream {
public:
    RecordStream(AtomicFile file, bool zstd);
    RecordStream(RecordStream&&) noexcept;
    ~RecordStream();

    // Reserves room for `size` record bytes, flushing the buffer first if needed;
    // returns where to write them (valid until the next call).
    Result<uint8_t*> reserve(size_t size);
    void commit(size_t size) { used_ += size; }

    // Flushes the buffer and ends the zstd frame. Afterwards the file position is
    // the end of the record stream.
    Status endRecords();
    // Flushes the buffer, and zstd's, without ending the frame: the file then holds every
    // record so far, in whole blocks (a checkpoint copies them and ends the frame itself).
    Status flushRecords();
    // Plain (never compressed) bytes after the record stream: tables, stats, footer.
    Status writeRaw(const void* data, size_t size);
    uint64_t position() const { return position_; }
    AtomicFile& file() { return file_; }

private:
    enum class Flush { Continue, Blocks, End };
    Status flush(Flush how);

    AtomicFile file_;
    bool zstd_;
    std::vector<uint8_t> buffer_;
    size_t used_ = 0;
    std::vector<uint8_t> compressed_;
    struct CCtxFree {
        void operator()(ZSTD_CCtx* p) const;
    };
    std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx_;
    uint64_t position_ = 0; // bytes written to the file so far
};

} // namespace gilscope::tach
