#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_dict.h"
#include "core/remote/value_describer.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gilscope::remote {

// The reads a label's value is made of, kept as its proof: every range read from the
// target and the bytes found there. A value decodes from these bytes alone (names and
// types are cached by address), so when one re-read of the same ranges finds the same
// bytes, the value stands: one system call instead of a walk, for a thread that ran but
// whose context or request did not change. Shared by the context-variable and the frame
// labels.
class LabelReads {
public:
    // Reference counts are not part of a proof: other threads change them all the time
    // (a shared value, a node two versions of the variables share) while the values stay.
    struct Proof {
        std::vector<std::pair<uint64_t, uint32_t>> ranges; // address, length
        std::vector<uint8_t> bytes;
        // Where reference counts lie (address, bytes): they are not compared.
        std::vector<std::pair<uint64_t, uint32_t>> counts;
        bool complete = false; // false: too large to keep, or a read failed
    };
    // An OpenTelemetry span takes about 52 ranges (each of two attribute lookups reads the
    // text of the span's attribute names).
    static constexpr size_t kMaxProofRanges = 128;
    static constexpr size_t kMaxProofBytes = 8192;
    static constexpr size_t kMaxTypeNames = 4096;

    LabelReads(ProcessMemory& mem, const PythonLayout& layout);

    // A new read: a fresh proof and byte budget.
    void begin();
    // The reads since begin(), through objects(), and whether a proof still holds now.
    const Proof& proof() const { return recorded_.proof; }
    bool stillHolds(const Proof& proof);
    // The reads since begin() find the same bytes again (or cannot be proven: too large):
    // the target did not change what was read while it was read (a torn read mixes two
    // requests).
    bool unchangedSinceRead() { return !proof().complete || stillHolds(proof()); }
    // The proof cannot be trusted (a read failed, or it saw nothing).
    void spoil() { recorded_.proof.complete = false; }
    // An object starts at addr: its reference counts are left out of the proof.
    void object(uint64_t addr) { recorded_.counts(addr, layout_.obType); }
    // The object read at addr (whole, and more) is `size` bytes: what the read found past
    // its end belongs to other objects, which change, and is left out of the proof.
    void objectSize(uint64_t addr, size_t size) { recorded_.limit(addr, size); }

    // Dicts, attributes and plain reads of the target, recorded into the proof.
    RemoteDicts& objects() { return objects_; }
    // The name of an object's type (cached by the type's address: types do not move).
    bool typeName(uint64_t object, std::string& name);
    bool typeNameOf(uint64_t object, uint64_t type, std::string& name); // type already read
    // Its type's tp_flags (RemoteDicts::kDictSubclass...), cached by the type's address.
    bool typeFlags(uint64_t object, uint64_t& flags);
    // A label's text for the object: a str as it is ("/checkout", not "'/checkout'"),
    // anything else as dump --locals shows it; cut to kMaxLabelValueBytes.
    std::string valueText(uint64_t value);
    // The object a cell holds (0: empty or unreadable); the object itself if no cell.
    uint64_t followCell(uint64_t object) { return describer_.followCell(object); }
    // An instance attribute (0: not set), through objects(); fails with the reason.
    bool attribute(uint64_t object, std::string_view name, uint64_t& value);

    bool fail(std::string why);
    const std::string& why() const { return why_; }
    void clearWhy() { why_.clear(); }

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
        void counts(uint64_t addr, size_t len) {
            if (proof.counts.size() < 2 * kMaxProofRanges)
                proof.counts.emplace_back(addr, static_cast<uint32_t>(len));
        }
        Proof proof;

    private:
        void keep(uint64_t addr, const void* bytes, size_t len);
        ProcessMemory& inner_;
    };
    void limitToString(uint64_t str); // the proof keeps the str, not what follows it

    ProcessMemory& mem_;
    const PythonLayout& layout_;
    RecordingMemory recorded_;
    RemoteDicts objects_;
    ValueDescriber describer_;
    std::vector<uint8_t> check_;
    std::vector<iovec> checkLocal_, checkRemote_;
    std::unordered_map<uint64_t, std::string> typeNames_;
    std::unordered_map<uint64_t, uint64_t> typeFlags_;
    std::string why_;
};

} // namespace gilscope::remote
