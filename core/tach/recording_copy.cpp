#include "core/tach/recording_copy.h"

#include "core/tach/save_bin_copy.h"
#include "core/tach/thread_names_file.h"
#include "core/util/utf8.h"

#include <cstdlib>

namespace gilscope {
namespace {

namespace fs = std::filesystem;

constexpr char kCopyName[] = "recording.bin";
constexpr char kCheckpointName[] = "so-far.bin";

// A path as a shell word: plain when it is only safe characters, else single-quoted.
std::string shellWord(const std::string& s) {
    const bool plain =
        !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789@%+=:,./_-") == std::string::npos;
    if (plain) return s;
    std::string quoted = "'";
    for (const char c : s)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// The first of NAME.rescued.bin, NAME.rescued-2.bin, ... in dir that is free.
Result<fs::path> saveUnder(const fs::path& copy, const fs::path& dir, const std::string& name) {
    for (int n = 1; n <= 1000; ++n) {
        const fs::path candidate =
            dir /
            (name + (n == 1 ? std::string(".rescued") : ".rescued-" + std::to_string(n)) + ".bin");
        std::error_code ec;
        if (fs::exists(fs::symlink_status(candidate, ec))) continue;
        // noReplace: should the name be taken meanwhile, that file stays.
        const Status saved = saveBinCopy(copy, candidate, {}, nullptr, {.noReplace = true});
        if (!saved) return saved.error();
        return candidate;
    }
    return makeError(ErrorKind::Io, "no free name for a rescued recording in " + dir.string());
}

} // namespace

RecordingCopy::RecordingCopy() {
    auto dir = TempDir::create(temp_prefix::kLiveCopy);
    if (!dir) {
        status_ = dir.error();
        return;
    }
    dir_ = std::move(dir).value();
    auto writer = TachWriter::create(dir_.path() / kCopyName);
    if (!writer) {
        status_ = writer.error();
        return;
    }
    writer_ = std::move(writer).value();
}

RecordingCopy::~RecordingCopy() = default;

void RecordingCopy::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    if (writer_) writer_->begin(registry, info);
}

void RecordingCopy::nameThread(uint64_t threadId, const std::string& name) {
    if (writer_) writer_->nameThread(threadId, name);
}

void RecordingCopy::addMarker(uint64_t timestampUs, const std::string& text) {
    if (writer_) writer_->addMarker(timestampUs, text);
}

void RecordingCopy::addCounters(const ProcessCounters& reading) {
    if (writer_) writer_->addCounters(reading);
}

Result<fs::path> RecordingCopy::checkpoint() {
    if (!writer_ || finalized_)
        return makeError(ErrorKind::Io,
                         "the recording's .bin copy is gone (" + status_.error().message + ")");
    const fs::path path = dir_.path() / kCheckpointName;
    if (Status s = writer_->checkpoint(path); !s) return s.error();
    return path;
}

void RecordingCopy::addBatch(const SampleBatch& batch) {
    if (writer_ && !writer_->failed()) writer_->addBatch(batch);
}

void RecordingCopy::finish(const RecordingSummary& summary) {
    if (writer_) writer_->finish(summary);
}

void RecordingCopy::finalize() {
    if (finalized_) return;
    finalized_ = true;
    if (!writer_) return;
    const Status saved = writer_->finalize();
    if (saved)
        path_ = dir_.path() / kCopyName;
    else
        status_ = saved;
}

void RecordingCopy::drop(std::string why) {
    finalized_ = true;
    writer_.reset();
    path_.clear();
    status_ = makeError(ErrorKind::NoSamples, std::move(why));
}

Result<fs::path> RecordingCopy::rescue(const fs::path& destination) const {
    if (path_.empty())
        return makeError(ErrorKind::Io, "its .bin copy failed (" + status_.error().message + ")");
    return rescueRecording(path_, destination);
}

fs::path rescuedRecordingsDir() {
    const char* cache = std::getenv("XDG_CACHE_HOME");
    fs::path base;
    if (cache && *cache == '/') {
        base = cache;
    } else {
        const char* home = std::getenv("HOME");
        base = fs::path(home && *home ? home : "/tmp") / ".cache";
    }
    return base / "gilscope" / "rescued";
}

Result<fs::path> rescueRecording(const fs::path& copy, const fs::path& destination) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(destination, ec);
    const fs::path dest = ec ? destination : absolute;
    // Standard output or a device has no "beside": straight to the cache.
    const fs::file_status st = fs::status(dest, ec);
    const bool file =
        !destination.empty() && destination != "-" &&
        (st.type() == fs::file_type::regular || st.type() == fs::file_type::not_found);
    const std::string name = file ? dest.filename().string() : "recording";
    std::string besideProblem;
    if (file) {
        auto beside = saveUnder(copy, dest.parent_path(), name);
        if (beside) {
            (void)copyThreadNames(copy, *beside); // the recording is whole without them
            return beside;
        }
        besideProblem = beside.error().message + "; ";
    }
    const fs::path cache = rescuedRecordingsDir();
    fs::create_directories(cache, ec);
    auto cached = saveUnder(copy, cache, name);
    if (cached) {
        (void)copyThreadNames(copy, *cached);
        return cached;
    }
    return makeError(cached.error().kind, besideProblem + cached.error().message);
}

std::string rescueNote(const Result<fs::path>& rescued, const char* formatFlag,
                       const fs::path& destination) {
    if (!rescued) return "the recording could not be kept either: " + rescued.error().message;
    std::string command = "gilscope replay " + shellWord(rescued->string()) + " " + formatFlag;
    if (!destination.empty()) command += " -o " + shellWord(destination.string());
    return "the recording was kept in " + escapeForDisplay(rescued->string()) +
           "; to write the output, run: " + escapeForDisplay(command);
}

} // namespace gilscope
