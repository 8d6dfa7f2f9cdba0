#include "core/gecko/gecko_collector.h"

#include "core/gecko/gecko_collector_impl.h"
#include "core/gecko/profile_streamer.h"
#include "core/util/atomic_file.h"

#include <cmath>
#include <ctime>
#include <mutex>
#include <sys/utsname.h>
#include <unistd.h>

namespace gilscope {

namespace {

double monotonicMs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

void cleanStaleSpillDirsOnce() {
    // A gilscope killed mid-recording leaves its spill directory behind (the CLI
    // cleans at start too; this covers other users of the library).
    static std::once_flag once;
    std::call_once(once, [] { cleanStaleTempDirs(temp_prefix::kGeckoSpill); });
}

} // namespace

GeckoCollector::Impl::Impl(GeckoOptions o) : opt(std::move(o)) {
    startTimeMs = opt.startTimeMs ? *opt.startTimeMs : monotonicMs();
    if (opt.spillBufferBytes == 0) opt.spillBufferBytes = 1;
}

void GeckoCollector::Impl::cleanup() {
    spill.reset(); // closes the spill file before its directory goes
    spillDir.remove();
}

Status GeckoCollector::Impl::exportTo(const std::filesystem::path* dest, AtomicFile* made,
                                      const ProgressCallback& progress, const CancelToken* cancel) {
    // A committed export spent the collector (its spill is gone); a failed one did not.
    if (exported.load()) {
        if (misuse) return *misuse;
        return makeError(ErrorKind::Internal, "the Gecko collector has already been exported");
    }
    exportStarted = true;
    if (misuse) return *misuse;
    if (tally) tally->finish(); // no sample comes after: count the ticks held back
    if (threads.empty())
        return makeError(ErrorKind::NoSamples,
                         "no samples were collected, so there is no Gecko profile to write");
    if (intervalCount > 0) interval = intervalSpan / static_cast<double>(intervalCount);
    if (sampleCount > 0 && lastSampleTime > 0)
        interval = lastSampleTime / static_cast<double>(sampleCount);
    if (!(interval > 0) || !std::isfinite(interval))
        interval = static_cast<double>(opt.intervalUs) / 1000.0;

    // A spill failure stopped the recording, but nothing was lost: what could not go to
    // disk stayed in memory, and the columns are read from both.
    if (!markersFinal) {
        finalizeMarkers();
        emitUserMarks();
    }
    markersFinal = true;
    if (misuse) return *misuse;

    Result<AtomicFile> file = made ? std::move(*made) : AtomicFile();
    if (!made) {
        std::error_code ec;
        const std::filesystem::path target = std::filesystem::absolute(*dest, ec);
        file = AtomicFile::create(ec ? *dest : target);
        if (!file.ok()) return file.error();
    }

    std::string pid = opt.pid ? *opt.pid : std::to_string(::getpid());
    utsname uts{};
    ::uname(&uts);
    std::string abi = opt.abi ? *opt.abi : std::string(uts.machine);
    std::string platform = opt.platform ? *opt.platform : std::string(uts.sysname);
    int cpus =
        opt.cpus ? *opt.cpus : static_cast<int>(std::max(0L, ::sysconf(_SC_NPROCESSORS_ONLN)));

    AtomicFile& out = file.value();
    JsonWriter writer([&](std::string_view chunk) -> Status {
        if (cancel && cancel->cancelled())
            return makeError(ErrorKind::Cancelled, "Gecko export cancelled");
        if (opt.beforeWrite) {
            if (Status s = opt.beforeWrite(writer.bytesWritten()); !s.ok()) return s;
        }
        return out.write(chunk, cancel);
    });
    ProfileStreamer streamer(*this, writer, progress, cancel, std::move(pid), std::move(abi),
                             std::move(platform), cpus);
    // On any early return ~AtomicFile removes the temporary file, and the spill stays:
    // the recording is not lost until its output is committed, so export can be retried.
    if (Status s = streamer.run(); !s.ok()) return s;
    if (Status s = out.commit(); !s.ok()) return s;
    exported = true;
    cleanup();
    return {};
}

GeckoCollector::GeckoCollector(GeckoOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
    cleanStaleSpillDirsOnce();
}

GeckoCollector::~GeckoCollector() {
    impl_->cleanup();
}

void GeckoCollector::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    impl_->registry = &registry;
    if (info.sampleIntervalUs != 0) impl_->opt.intervalUs = info.sampleIntervalUs;
    if (info.pythonMajor == 3) impl_->pythonMinor = info.pythonMinor;
    impl_->freeThreaded = info.freeThreaded;
    // gilscope's own recordings (live, or a .bin it wrote: it knows the target's CPUs) get
    // the parallelism counter; a replay of CPython's own .bin stays CPython's bytes.
    if (info.cpus > 0) {
        impl_->tally =
            std::make_unique<ParallelismTally>(info.cpus, info.freeThreaded, info.sampleIntervalUs);
        impl_->tally->setTickSink(
            [this](uint64_t t, const TickCounts& c) { impl_->parallel.add(t, c); });
    }
}

void GeckoCollector::addBatch(const SampleBatch& batch) {
    impl_->addBatch(batch);
}

void GeckoCollector::addMarker(uint64_t timestampUs, const std::string& text) {
    constexpr size_t kMaxMarks = 100000; // the sampler's bound too
    if (impl_->userMarks.size() < kMaxMarks) impl_->userMarks.emplace_back(timestampUs, text);
}

void GeckoCollector::addCounters(const ProcessCounters& reading) {
    impl_->counters.add(reading);
}

void GeckoCollector::nameThread(uint64_t threadId, const std::string& name) {
    constexpr size_t kMaxNamedThreads = 1 << 15; // a churning target cannot grow it further
    if (impl_->threadNames.size() < kMaxNamedThreads || impl_->threadNames.count(threadId))
        impl_->threadNames[threadId] = name;
}

void GeckoCollector::finish(const RecordingSummary& summary) {
    (void)summary;
}

bool GeckoCollector::failed() const {
    return impl_->spillError.has_value() || impl_->misuse.has_value();
}

Error GeckoCollector::sinkError() const {
    if (impl_->misuse) return *impl_->misuse;
    return impl_->spillError.value_or(Error{});
}

Status GeckoCollector::exportTo(const std::filesystem::path& dest, const ProgressCallback& progress,
                                const CancelToken* cancel) {
    return impl_->exportTo(&dest, nullptr, progress, cancel);
}

Status GeckoCollector::exportTo(AtomicFile file, const ProgressCallback& progress,
                                const CancelToken* cancel) {
    return impl_->exportTo(nullptr, &file, progress, cancel);
}

bool GeckoCollector::exported() const {
    return impl_->exported.load();
}
uint64_t GeckoCollector::sampleCount() const {
    return impl_->sampleCount;
}
size_t GeckoCollector::threadCount() const {
    return impl_->threads.size();
}
std::filesystem::path GeckoCollector::spillDirectory() const {
    return impl_->spillDir.valid() ? impl_->spillDir.path() : std::filesystem::path();
}

} // namespace gilscope
