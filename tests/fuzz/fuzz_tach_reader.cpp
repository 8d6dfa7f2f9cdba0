// libFuzzer target: any byte string opened and replayed as a .bin recording must give
// either a result or an Error — no crash, no hang, no unbounded allocation (run under
// ASan/UBSan with -rss_limit_mb). Build: cmake --preset fuzz; run: tests/fuzz/run.sh.
#include "core/sample/sample_sink.h"
#include "core/tach/tach_reader.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// Touches everything a real consumer would: every frame's strings and fields.
struct TouchingSink final : gilscope::SampleSink {
    void begin(const gilscope::FrameRegistry& r, const gilscope::RecordingInfo&) override {
        registry = &r;
    }
    void addBatch(const gilscope::SampleBatch& b) override {
        for (gilscope::FrameId id : b.frames) {
            const gilscope::FrameInfo& f = registry->frame(id);
            checksum += registry->string(f.filename).size() + registry->string(f.funcname).size();
            checksum += static_cast<uint32_t>(f.line) + f.opcode;
        }
        for (uint64_t t : b.timestampsUs)
            checksum += t;
        if (b.timestampsUs.empty()) __builtin_trap(); // a batch always has a sample
        if (b.frames.size() > 256) __builtin_trap();  // the depth limit holds
    }
    const gilscope::FrameRegistry* registry = nullptr;
    uint64_t checksum = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const int fd = memfd_create("fuzz-tach", 0);
    if (fd < 0) return 0;
    if (ftruncate(fd, 0) != 0) return 0;
    if (pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
    const std::string path = "/proc/self/fd/" + std::to_string(fd);

    auto reader = gilscope::TachReader::open(path);
    if (!reader.ok()) return 0;
    TouchingSink sink;
    auto replayed = reader->replay(sink);
    if (replayed.ok() && *replayed != reader->info().sampleCount) __builtin_trap();
    return 0;
}
