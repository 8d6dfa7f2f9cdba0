#include "core/push/push_queue.h"

#include "core/util/atomic_file.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <vector>

namespace gilscope::push {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSuffix = ".push";

// "00000000000000000042.push" -> 42; none for any other name.
std::optional<uint64_t> sequenceOf(const fs::path& file) {
    const std::string name = file.filename().string();
    if (name.size() != 20 + std::strlen(kSuffix) || !name.ends_with(kSuffix)) return std::nullopt;
    uint64_t n = 0;
    for (size_t i = 0; i < 20; ++i) {
        if (name[i] < '0' || name[i] > '9') return std::nullopt;
        n = n * 10 + static_cast<uint64_t>(name[i] - '0');
    }
    return n;
}

} // namespace

Result<PushQueue> PushQueue::open(const fs::path& dir, uint64_t maxBytes) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        return makeError(ErrorKind::Io, "cannot use " + dir.string() + " as the push queue: " +
                                            (ec ? ec.message() : "not a directory"));
    PushQueue q;
    q.dir_ = dir;
    q.maxBytes_ = maxBytes;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const auto sequence = sequenceOf(entry.path());
        if (!sequence || !entry.is_regular_file(ec)) continue;
        const uint64_t size = entry.file_size(ec);
        if (ec) continue;
        q.files_[*sequence] = size;
        q.bytes_ += size;
        q.next_ = std::max(q.next_, *sequence + 1);
    }
    if (ec)
        return makeError(ErrorKind::Io,
                         "cannot read the push queue " + dir.string() + ": " + ec.message());
    return q;
}

Result<PushQueue> PushQueue::openSession(const fs::path& base, uint64_t maxBytes) {
    const fs::path mine = base / std::to_string(::getpid());
    auto queue = open(mine, maxBytes);
    if (!queue) return queue.error();
    std::error_code ec;
    std::vector<fs::path> orphans;
    for (const auto& entry : fs::directory_iterator(base, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const long pid = std::strtol(name.c_str(), nullptr, 10);
        if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 ||
            errno != ESRCH)
            continue;
        // Claimed by renaming it into ours: of two gilscopes starting at once, one wins.
        const fs::path claimed = mine / (".adopt-" + name);
        fs::rename(entry.path(), claimed, ec);
        if (!ec) orphans.push_back(claimed);
    }
    for (const fs::path& dir : orphans) {
        auto old = open(dir, UINT64_MAX);
        if (old) {
            while (auto item = old->front()) {
                if (!queue->push(item->body)) break; // kept where it is, for a later run
                old->pop(item->sequence);
            }
        }
        fs::remove(dir, ec); // only when empty
    }
    return queue;
}

void PushQueue::removeIfEmpty() {
    std::error_code ec;
    if (files_.empty()) fs::remove(dir_, ec); // fails harmlessly when not empty
}

fs::path PushQueue::pathOf(uint64_t sequence) const {
    char name[32];
    std::snprintf(name, sizeof name, "%020llu%s", static_cast<unsigned long long>(sequence),
                  kSuffix);
    return dir_ / name;
}

Result<uint64_t> PushQueue::push(const std::string& body) {
    uint64_t dropped = 0;
    // Room first, oldest first; the new body itself is always kept.
    while (!files_.empty() && bytes_ + body.size() > maxBytes_) {
        pop(files_.begin()->first);
        ++dropped;
    }
    const uint64_t sequence = next_++;
    auto file = AtomicFile::create(pathOf(sequence));
    if (!file) return file.error();
    if (Status s = file->write(body); !s) return s.error();
    if (Status s = file->commit(); !s) return s.error();
    files_[sequence] = body.size();
    bytes_ += body.size();
    return dropped;
}

std::optional<PushQueue::Item> PushQueue::front() {
    while (!files_.empty()) {
        const uint64_t sequence = files_.begin()->first;
        std::ifstream in(pathOf(sequence), std::ios::binary);
        std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (in.good() || in.eof()) {
            if (!body.empty()) return Item{sequence, std::move(body)};
        }
        ++unreadable_;
        pop(sequence);
    }
    return std::nullopt;
}

void PushQueue::pop(uint64_t sequence) {
    auto it = files_.find(sequence);
    if (it == files_.end()) return;
    bytes_ -= it->second;
    files_.erase(it);
    std::error_code ec;
    fs::remove(pathOf(sequence), ec);
}

} // namespace gilscope::push
