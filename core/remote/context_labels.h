#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_dict.h"
#include "core/remote/value_describer.h"
#include "core/sample/sample_label.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// Reads labels (--label-from) out of a contextvars.Context in the target: the context
// keeps its variables in a HAMT (Python/hamt.c) keyed by the ContextVar objects, which
// carry their names. Every node is type-checked by its type's name, and every walk is
// bounded in nodes, depth and bytes (RemoteDicts' budget): a cyclic or torn tree, a
// pointer into nowhere or a huge string gives "unreadable", never a hang.
class ContextLabels {
public:
    // Every range a read() of the context took from the target, and the bytes it found:
    // the values decode from these bytes alone (names and types are cached by address),
    // so if one re-read of the same ranges finds the same bytes, the values stand. That
    // one system call replaces a walk of the context for a thread that ran, but whose
    // variables did not change.
    // Reference counts are not part of it: other threads change them all the time (a
    // shared value, a node two versions of the variables share) while the values stay.
    struct Proof {
        std::vector<std::pair<uint64_t, uint32_t>> ranges; // address, length
        std::vector<uint8_t> bytes;
        std::vector<uint64_t> objects; // where objects start: their counts are not compared
        bool complete = false;         // false: too large to keep, or a read failed
    };
    static constexpr size_t kMaxProofRanges = 64;
    static constexpr size_t kMaxProofBytes = 8192;

    static constexpr size_t kMaxNodes = 512;     // HAMT nodes looked at in one context
    static constexpr int kMaxDepth = 8;          // a HAMT of 32-bit hashes is 7 levels deep
    static constexpr size_t kMaxVarNames = 4096; // ContextVar names kept by address

    ContextLabels(ProcessMemory& mem, const PythonLayout& layout, std::vector<LabelSource> sources);

    // values[i]: the value of sources[i] in the Context at `context` (nullopt: not set
    // there, or no context). False when the context could not be read (why()).
    bool read(uint64_t context, std::vector<std::optional<std::string>>& values);

    // The proof of the last read(); and whether a proof still holds now (one read).
    const Proof& lastProof() const { return recorded_.proof; }
    bool stillHolds(const Proof& proof);

    const std::vector<LabelSource>& sources() const { return sources_; }
    const std::string& why() const { return why_; }

private:
    // The target's memory, keeping what each read found while a proof is being taken.
    class RecordingMemory final : public ProcessMemory {
    public:
        explicit RecordingMemory(ProcessMemory& inner) : inner_(inner) {}
        size_t readPartial(uint64_t addr, void* dst, size_t len) override;
        size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) override;
        void begin() { proof = {}, proof.complete = true; }
        // The range read at addr keeps only its first len bytes: what lies beyond the
        // object (its neighbours on the heap) is not part of the proof.
        void limit(uint64_t addr, size_t len);
        void object(uint64_t addr) {
            if (proof.objects.size() < kMaxProofRanges) proof.objects.push_back(addr);
        }
        Proof proof;

    private:
        void keep(uint64_t addr, const void* bytes, size_t len);
        ProcessMemory& inner_;
    };

    bool fail(std::string why);
    // The name of an object's type (cached by the type's address: types do not move).
    bool typeName(uint64_t object, std::string& name);
    bool typeNameOf(uint64_t object, uint64_t type, std::string& name); // type already read
    bool walk(uint64_t node, int depth, size_t& nodes);
    bool visitPair(uint64_t key, uint64_t value);
    std::optional<std::string> varName(uint64_t var);
    std::string valueText(uint64_t value);
    void limitToString(uint64_t str); // the proof keeps the str, not what follows it

    ProcessMemory& mem_;
    RecordingMemory recorded_;
    const PythonLayout& layout_;
    std::vector<LabelSource> sources_;
    RemoteDicts objects_;
    std::vector<uint8_t> check_;
    std::vector<iovec> checkLocal_, checkRemote_;
    ValueDescriber describer_;
    std::unordered_map<uint64_t, std::string> typeNames_;
    std::unordered_map<uint64_t, std::string> varNames_;
    std::vector<std::optional<std::string>>* values_ = nullptr; // read()'s output
    size_t found_ = 0;
    std::string why_;
};

} // namespace gilscope::remote
