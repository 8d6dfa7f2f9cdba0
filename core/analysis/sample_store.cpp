#include "core/analysis/sample_store.h"

#include "core/util/atomic_file.h"
#include "core/util/write_all.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace gilscope {

void SampleStore::append(const SampleRecord& r) {
    if (spillFailed_ && memoryOnly_.size() + tail_.size() >= memoryLimit_) {
        ++dropped_; // memory is at its bound and the disk refused: say so, never grow
        return;
    }
    if (tail_.capacity() == 0) tail_.reserve(kBlockRecords);
    tail_.push_back(r);
    tailBlock_.minTime = std::min(tailBlock_.minTime, r.time());
    tailBlock_.maxTime = std::max(tailBlock_.maxTime, r.time());
    if (tail_.size() == kBlockRecords) flush();
}

std::string SampleStore::spillProblem() const {
    if (!spillFailed_) return {};
    std::string problem = "samples are kept in memory: " + spillProblem_;
    if (dropped_ > 0)
        problem += "; memory is full, so the last " + std::to_string(dropped_) +
                   " thread-samples are left out of time ranges and GIL contention (the first " +
                   std::to_string(size()) + " are kept)";
    return problem;
}

void SampleStore::flush() {
    if (!spillFailed_ && !file_) {
        // Spill dirs left by a gilscope that was killed go first, once per process.
        static const int cleaned = cleanStaleTempDirs(temp_prefix::kAnalysis);
        (void)cleaned;
        auto dir = TempDir::create(temp_prefix::kAnalysis);
        if (!dir) {
            spillFailed_ = true;
            spillProblem_ = dir.error().message;
        } else {
            dir_ = std::move(*dir);
            const auto path = dir_.path() / "samples";
            UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
            if (!fd) {
                spillFailed_ = true;
                spillProblem_ =
                    ioError(errno, "cannot create the analysis spill file", path).message;
            } else {
                file_ = std::make_shared<UniqueFd>(std::move(fd));
            }
        }
    }
    if (!spillFailed_) {
        if (!pwriteAll(file_->get(), tail_.data(), tail_.size() * sizeof(SampleRecord),
                       flushed_ * sizeof(SampleRecord))) {
            spillFailed_ = true;
            spillProblem_ =
                ioError(errno, "cannot write the analysis spill file", dir_.path() / "samples")
                    .message;
        }
    }
    if (spillFailed_) {
        // Keep everything in memory from now on rather than lose samples.
        memoryOnly_.insert(memoryOnly_.end(), tail_.begin(), tail_.end());
    } else {
        blocks_.push_back(tailBlock_);
        flushed_ += tail_.size();
    }
    tail_.clear();
    tailBlock_ = Block{};
}

SampleStore::View SampleStore::view() const {
    View v;
    v.file = file_;
    v.blocks = blocks_;
    v.memory.reserve(memoryOnly_.size() + tail_.size());
    v.memory = memoryOnly_;
    v.memory.insert(v.memory.end(), tail_.begin(), tail_.end());
    return v;
}

Status SampleStore::View::scan(uint64_t t0, uint64_t t1,
                               const std::function<void(std::span<const SampleRecord>)>& fn,
                               const CancelToken* cancel) const {
    std::vector<SampleRecord> buf;
    for (size_t b = 0; b < blocks.size(); ++b) {
        if (cancel && cancel->cancelled()) return makeError(ErrorKind::Cancelled, "cancelled");
        if (blocks[b].maxTime < t0 || blocks[b].minTime > t1) continue;
        if (buf.empty()) buf.resize(kBlockRecords);
        const size_t bytes = kBlockRecords * sizeof(SampleRecord);
        const off_t at = static_cast<off_t>(b * bytes);
        size_t done = 0;
        char* p = reinterpret_cast<char*>(buf.data());
        while (done < bytes) {
            const ssize_t n =
                ::pread(file->get(), p + done, bytes - done, at + static_cast<off_t>(done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                return makeError(ErrorKind::Io,
                                 "cannot read the analysis spill file: " +
                                     std::string(n < 0 ? strerror(errno) : "short read"));
            done += static_cast<size_t>(n);
        }
        fn(std::span<const SampleRecord>(buf.data(), kBlockRecords));
    }
    if (!memory.empty()) fn(memory);
    return {};
}

} // namespace gilscope
