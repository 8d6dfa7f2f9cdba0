#pragma once

#include "core/remote/frame_locals.h"
#include "core/remote/label_reads.h"
#include "core/remote/walk_context.h"
#include "core/sample/frame_registry.h"
#include "core/sample/sample_label.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// Reads labels from frame variables (--label-from KEY=FUNC:EXPR): on a walked stack, the
// innermost frame of FUNC gives its variable, followed along EXPR's attributes and str
// keys (self.path, environ['PATH_INFO']). Django's request.path in a view, WSGI's environ
// or a worker's job.kind label samples with no code in the process. Reads go through
// LabelReads, so a request that goes on (the same frame, the same bytes) costs one read.
class FrameLabels {
public:
    static constexpr size_t kMaxCodes = 4096; // code objects whose variable slot is kept

    // The frame a source reads from, on the stack just walked (frame 0: none there).
    struct Anchor {
        uint64_t frame = 0, code = 0;
        bool operator==(const Anchor&) const = default;
    };

    // sources: the frame ones (fromFrame()); registry: the walker's, to name the frames.
    FrameLabels(ProcessMemory& mem, const PythonLayout& layout, const FrameRegistry& registry,
                std::vector<LabelSource> sources);

    // For each source, the innermost frame of its function among the walked frames
    // (leaf first, as a ThreadStack holds them; addresses from FrameWalker).
    void findAnchors(std::span<const FrameId> frames, std::span<const FrameAddress> addresses,
                     std::vector<Anchor>& anchors);
    // values[i]: the label of sources[i] read at anchors[i] (nullopt: its function is not
    // on the stack). False when one could not be read: its value is then "(unreadable)"
    // and why() says what failed.
    bool read(std::span<const Anchor> anchors, std::vector<std::optional<std::string>>& values);

    const LabelReads::Proof& lastProof() const { return reads_.proof(); }
    bool stillHolds(const LabelReads::Proof& proof) { return reads_.stillHolds(proof); }
    const std::vector<LabelSource>& sources() const { return sources_; }
    const std::string& why() const { return why_; }

private:
    // Whether each source's function is this frame's (bit i: sources_[i]), by frame id.
    uint32_t matches(FrameId id);
    // The slot of a source's variable in frames of `code`.
    std::optional<FrameLocalsReader::Slot> slot(size_t source, uint64_t code);
    enum class Outcome { Value, Absent, Unreadable };
    // The label of one source at its frame (Absent: the variable, attribute or key is
    // not set); why in reads_ when unreadable.
    Outcome readOne(size_t source, const Anchor& at, std::string& value);
    Outcome follow(const LabelPathStep& step, uint64_t& object);
    Outcome unreadable(std::string why);

    const PythonLayout& layout_;
    const FrameRegistry& registry_;
    std::vector<LabelSource> sources_;
    LabelReads reads_;
    FrameLocalsReader names_;       // the code objects' variable names, read apart from the proof
    std::vector<uint32_t> matches_; // by frame id; kKnown once looked at
    static constexpr uint32_t kKnown = 1u << 31;
    struct CodeSlots {
        std::vector<std::optional<FrameLocalsReader::Slot>> bySource;
        std::vector<bool> looked;
    };
    std::unordered_map<uint64_t, CodeSlots> slots_; // by code object
    std::string why_;
};

} // namespace gilscope::remote
