#pragma once

#include "core/common/error.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace gilscope::push {

// Pushes not yet accepted, on disk: one file per request body (`<sequence>.push`, written
// whole or not at all), sent oldest first. Bounded: when a new one would take the queue
// past its size, the oldest are dropped (and counted). Files found in the directory when
// it is opened (a previous run's) are kept and sent first.
class PushQueue {
public:
    static Result<PushQueue> open(const std::filesystem::path& dir, uint64_t maxBytes);
    // This process's queue under `base` (base/<pid>), holding first what the queues of
    // gilscopes that no longer run left there (sent before anything new, oldest first).
    // Each queue has one owner, so no profile is sent by two gilscopes.
    static Result<PushQueue> openSession(const std::filesystem::path& base, uint64_t maxBytes);
    // Removes the directory if nothing is left in it.
    void removeIfEmpty();

    struct Item {
        uint64_t sequence = 0;
        std::string body;
    };
    // Adds a body; returns how many of the oldest were dropped to make room.
    Result<uint64_t> push(const std::string& body);
    // The oldest item, read from disk; none when empty. A file that cannot be read is
    // dropped (counted) rather than blocking the queue.
    std::optional<Item> front();
    void pop(uint64_t sequence);

    size_t size() const { return files_.size(); }
    bool empty() const { return files_.empty(); }
    uint64_t bytes() const { return bytes_; }
    uint64_t unreadable() const { return unreadable_; }
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path pathOf(uint64_t sequence) const;

    std::filesystem::path dir_;
    uint64_t maxBytes_ = 0;
    std::map<uint64_t, uint64_t> files_; // sequence -> size, oldest first
    uint64_t bytes_ = 0;
    uint64_t next_ = 1;
    uint64_t unreadable_ = 0;
};

} // namespace gilscope::push
