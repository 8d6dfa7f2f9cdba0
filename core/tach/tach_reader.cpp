#include "core/tach/tach_reader.h"

#include "core/tach/byte_window.h"
#include "core/tach/file_io.h"
#include "core/tach/record_replayer.h"
#include "core/tach/tach_format.h"
#include "core/tach/tach_layout.h"
#include "core/tach/tach_tables.h"
#include "core/tach/thread_names_file.h"
#include "core/util/atomic_file.h"
#include "core/util/unique_fd.h"

#include <zstd.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace gilscope {

using namespace tach;

namespace {

constexpr size_t kStreamWindow = 1024 * 1024;

// CPython decompresses at open, so a damaged zstd stream fails open(); we stream, so
// we check the frame header and walk the stream once to learn its decompressed size
// (needed for CPython's run-length bounds check) without keeping it.
Result<uint64_t> measureZstdStream(int fd, const TachInfo& info) {
    const uint64_t regionSize = info.stringTableOffset - kHeaderSize;
    uint8_t head[18] = {}; // ZSTD_FRAMEHEADERSIZE_MAX (static-linking-only API)
    const size_t headSize = static_cast<size_t>(std::min<uint64_t>(regionSize, sizeof head));
    if (auto s = readExact(fd, head, headSize, kHeaderSize); !s) return s.error();
    if (ZSTD_getFrameContentSize(head, headSize) == ZSTD_CONTENTSIZE_ERROR)
        return corrupt("Corrupted zstd frame header");
    ByteWindow window(fd, kHeaderSize, info.stringTableOffset, ByteWindow::Kind::Zstd,
                      kStreamWindow);
    uint64_t total = 0;
    for (;;) {
        auto avail = window.ensure(window.capacity());
        if (!avail) return avail.error();
        if (*avail == 0) break;
        total += *avail;
        window.consume(*avail);
    }
    return total;
}

} // namespace

struct TachReader::Impl {
    std::filesystem::path path;
    UniqueFd fd;
    TachInfo info;
    FrameRegistry registry;
    TachTables tables;
    std::vector<FrameId> frameCache;
    TachRecordStats stats;
    BinSideFacts side; // what gilscope kept beside the file
};

TachReader::TachReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
}
TachReader::TachReader(TachReader&&) noexcept = default;
TachReader& TachReader::operator=(TachReader&&) noexcept = default;
TachReader::~TachReader() = default;

namespace {
const char* fileTypeName(mode_t mode) {
    if (S_ISDIR(mode)) return "directory";
    if (S_ISFIFO(mode)) return "FIFO";
    if (S_ISCHR(mode)) return "character device";
    if (S_ISBLK(mode)) return "block device";
    if (S_ISSOCK(mode)) return "socket";
    return "special file";
}
} // namespace

Result<TachReader> TachReader::reopen() const {
    auto again = open("/proc/self/fd/" + std::to_string(impl_->fd.get()));
    if (!again) return again.error();
    again->impl_->path = impl_->path; // for messages: the name the user gave
    again->impl_->side = impl_->side; // read beside the file's name, once
    again->impl_->info = impl_->info;
    return again;
}

Result<TachReader> TachReader::open(const std::filesystem::path& path) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    // O_NONBLOCK: opening a FIFO (or a tty) must not wait for a writer; the type is
    // checked before anything is read, then the descriptor blocks as usual.
    impl->fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!impl->fd) return ioError(errno, "cannot open the recording", path);
    struct stat st {};
    if (::fstat(impl->fd.get(), &st) != 0) return ioError(errno, "cannot read the recording", path);
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorKind::BadArguments, path.string() + " is not a regular file (a " +
                                                      fileTypeName(st.st_mode) +
                                                      "); a recording must be read from a file");
    ::fcntl(impl->fd.get(), F_SETFL, ::fcntl(impl->fd.get(), F_GETFL) & ~O_NONBLOCK);

    auto layout = readLayout(impl->fd.get(), static_cast<uint64_t>(st.st_size));
    if (!layout) return layout.error();
    impl->info = std::move(*layout);
    TachInfo& info = impl->info;
    if (info.compression == 1) {
        auto size = measureZstdStream(impl->fd.get(), info);
        if (!size) return size.error();
        info.sampleDataBytes = *size;
    } else {
        info.sampleDataBytes = info.stringTableOffset - kHeaderSize;
    }
    auto tables = readTables(impl->fd.get(), info, impl->registry);
    if (!tables) return tables.error();
    impl->tables = std::move(*tables);
    impl->side = readBinSideFile(path, {info.fileSize, info.startTimeUs, info.sampleCount});
    info.freeThreaded = impl->side.freeThreaded;
    info.nativeFrames = impl->side.nativeFrames;
    info.sideFile = describeSideFile(path, impl->side);
    return TachReader(std::move(impl));
}

const TachInfo& TachReader::info() const {
    return impl_->info;
}
const TachRecordStats& TachReader::recordStats() const {
    return impl_->stats;
}
const std::vector<ProcessCounters>& TachReader::counters() const {
    return impl_->side.counters;
}

const FrameRegistry& TachReader::registry() const {
    return impl_->registry;
}

Result<uint64_t> TachReader::replay(SampleSink& sink, const ProgressCallback& progress,
                                    const CancelToken* cancel) {
    const TachInfo& info = impl_->info;
    impl_->stats = {};
    ByteWindow stream(impl_->fd.get(), kHeaderSize, info.stringTableOffset,
                      info.compression == 1 ? ByteWindow::Kind::Zstd : ByteWindow::Kind::Raw,
                      kStreamWindow);
    if (auto s = stream.rewind(); !s) return s.error();

    RecordingInfo recording;
    recording.sampleIntervalUs = info.sampleIntervalUs;
    recording.startTimeUs = info.startTimeUs;
    recording.mode = info.mode.value_or(-1);
    recording.captureFeatures = info.captureFeatures.value_or(-1);
    recording.pythonMajor = info.pythonMajor;
    recording.pythonMinor = info.pythonMinor;
    recording.pythonMicro = info.pythonMicro;
    // What gilscope kept beside the file (CPython's format has no place for it).
    recording.freeThreaded = impl_->side.freeThreaded;
    recording.cpus = impl_->side.cpus;
    sink.begin(impl_->registry, recording);
    for (const auto& [tid, name] : impl_->side.names)
        sink.nameThread(tid, name);
    for (const auto& [us, text] : impl_->side.markers)
        sink.addMarker(us, text);
    for (const ProcessCounters& c : impl_->side.counters)
        sink.addCounters(c);

    RecordReplayer replayer(stream, info, impl_->tables, impl_->registry, impl_->frameCache);
    auto replayed = replayer.run(sink, progress, cancel, impl_->stats);
    if (!replayed) return replayed.error();

    RecordingSummary summary;
    summary.threadSamples = *replayed;
    if (info.stats) {
        summary.durationSec = info.stats->durationSec;
        summary.sampleRate = info.stats->sampleRate;
        summary.hasErrorRate = info.stats->errorRatePct.has_value();
        summary.errorRatePct = info.stats->errorRatePct.value_or(0);
        summary.hasMissed = info.stats->missedPct.has_value();
        summary.missedPct = info.stats->missedPct.value_or(0);
    }
    sink.finish(summary);
    return replayed;
}

} // namespace gilscope
