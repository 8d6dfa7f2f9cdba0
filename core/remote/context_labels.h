#pragma once

#include "core/remote/label_reads.h"
#include "core/remote/python_layout.h"
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
    using Proof = LabelReads::Proof;
    static constexpr size_t kMaxNodes = 512;     // HAMT nodes looked at in one context
    static constexpr int kMaxDepth = 8;          // a HAMT of 32-bit hashes is 7 levels deep
    static constexpr size_t kMaxVarNames = 4096; // ContextVar names kept by address

    // sources: the context-variable ones (frame labels are FrameLabels').
    ContextLabels(ProcessMemory& mem, const PythonLayout& layout, std::vector<LabelSource> sources);

    // values[i]: the value of sources[i] in the Context at `context` (nullopt: not set
    // there, or no context). False when the context could not be read (why()).
    bool read(uint64_t context, std::vector<std::optional<std::string>>& values);

    // The proof of the last read() (see LabelReads); and whether a proof still holds now.
    const Proof& lastProof() const { return reads_.proof(); }
    bool stillHolds(const Proof& proof) { return reads_.stillHolds(proof); }

    const std::vector<LabelSource>& sources() const { return sources_; }
    const std::string& why() const { return reads_.why(); }

private:
    bool fail(std::string why) { return reads_.fail(std::move(why)); }
    bool walk(uint64_t node, int depth, size_t& nodes);
    bool visitPair(uint64_t key, uint64_t value);
    std::optional<std::string> varName(uint64_t var);

    // OpenTelemetry's current span, read from the value of its context variable (--label-from
    // otel): a dict whose "current-span-<uuid>" key holds the span; the SDK's span keeps its
    // name in `_name` and its SpanContext, a tuple (trace_id, span_id, ...), in `_context`.
    struct Span {
        bool isOtel = false; // the variable's value is a dict: OpenTelemetry's context
        std::optional<std::string> traceId, spanId, name;
    };
    bool readSpan(uint64_t otelContext, Span& span);
    std::optional<std::string> spanField(const Span& span, LabelSource::Span field) const;

    const PythonLayout& layout_;
    LabelReads reads_;
    RemoteDicts& objects_; // reads_'s, recorded into the proof
    std::vector<LabelSource> sources_;
    std::unordered_map<uint64_t, std::string> varNames_;
    std::vector<std::optional<std::string>>* values_ = nullptr; // read()'s output
    std::vector<bool> done_; // by source: its variable was found in this read
    size_t found_ = 0;
};

} // namespace gilscope::remote
