#pragma once

#include "core/remote/context_labels.h"
#include "core/remote/frame_labels.h"
#include "core/remote/pseudo_frames.h"
#include "core/sample/stack_source.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// Gives each sampled stack its labels (--label-from) as root pseudo-frames, in the order
// the options name them: context variables through ContextLabels, frame variables through
// FrameLabels. Per thread it keeps the last labels and their proof: a thread that ran no
// Python since keeps them without a read, one that ran in the same context (and, for
// frame labels, with the same frames of those functions) keeps them after one read that
// finds the same bytes.
class SampleLabeller {
public:
    // contexts: whether this interpreter's layout says where a thread's context is.
    SampleLabeller(ProcessMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
                   const std::vector<LabelSource>& sources, bool contexts, size_t maxThreads);

    // Frame labels need the walk's frame addresses.
    bool readsFrames() const { return frames_ != nullptr; }

    // Appends the labels to stack (leaf first: they go last). context: the thread state's
    // context; walked: the frames were walked now (false: served unchanged), with their
    // addresses. A label that cannot be read is "(unreadable)", and torn says why.
    void label(ThreadStack& stack, uint64_t context, bool walked,
               std::span<const FrameAddress> addresses, std::string& torn);

    // Whether the last label() read a context that could not be read.
    bool contextReadFailed() const { return contextFailed_; }

    uint64_t reads() const { return reads_; }
    uint64_t readsSaved() const { return saved_; }

private:
    struct Kept {
        uint64_t context = 0; // the Context they were read from
        LabelReads::Proof contextProof;
        std::vector<FrameLabels::Anchor> anchors; // the frames they were read from
        LabelReads::Proof frameProof;
        bool framesProven = false; // false: a read failed, so they are read again
        bool failed = false;       // a label was unreadable: read again, whatever ran
        std::vector<FrameId> frames;
    };
    void readAgain(Kept& kept, uint64_t context, std::string& torn);

    std::vector<LabelSource> sources_;
    std::vector<size_t> contextIndex_, frameIndex_; // where each reader's values go
    std::unique_ptr<ContextLabels> contexts_;
    std::unique_ptr<FrameLabels> frames_;
    PseudoFrames labelFrames_;
    size_t maxThreads_;
    std::unordered_map<uint64_t, Kept> kept_; // by thread id
    std::vector<FrameLabels::Anchor> anchors_;
    std::vector<std::optional<std::string>> values_, contextValues_, frameValues_;
    uint64_t reads_ = 0, saved_ = 0;
    bool contextFailed_ = false;
};

} // namespace gilscope::remote
