#pragma once

#include "core/common/error.h"
#include "core/sample/frame_registry.h"

#include <optional>
#include <string>
#include <string_view>

namespace gilscope {

// Where a sample's label comes from (--label-from): the value, in the sampled thread's
// current contextvars.Context, of the ContextVar named `varName`, labelled `key`.
struct LabelSource {
    std::string key;     // the label's name ("route")
    std::string varName; // the ContextVar's name (its `name` argument)
    bool operator==(const LabelSource&) const = default;
};

// "NAME" (the label is called as the variable) or "KEY=NAME"; an error names what is wrong.
Result<LabelSource> parseLabelSource(std::string_view text);

// A label travels as a root pseudo-frame, file "~", named "<label KEY=VALUE>", outside the
// thread's real root: every output that keeps frames keeps it (a .bin that CPython reads
// as it is, Gecko, collapsed stacks), the call tree groups by it, and the outputs that
// have labels of their own (pprof, the push) turn it back into one. The longest value
// kept, in bytes (cut on a character's boundary and ended with "…").
inline constexpr size_t kMaxLabelValueBytes = 128;
// A label frame's file: "~", as CPython names frames that are no source (<native>, <GC>).
inline constexpr std::string_view kLabelFile = kPseudoFrameFile;
std::string labelFrameName(std::string_view key, std::string_view value);

// The value of a label whose context could not be read (torn, or hostile memory).
inline constexpr std::string_view kUnreadableLabel = "(unreadable)";

struct SampleLabel {
    std::string_view key, value;
};
// The label a frame carries (views into `funcname`); nullopt for any other frame.
std::optional<SampleLabel> labelOfFrame(std::string_view filename, std::string_view funcname);

// `value` cut to kMaxLabelValueBytes on a UTF-8 character's boundary, "…" marking a cut.
std::string shortLabelValue(std::string_view value);

} // namespace gilscope
