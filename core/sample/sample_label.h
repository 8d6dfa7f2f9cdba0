#pragma once

#include "core/common/error.h"
#include "core/sample/frame_registry.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope {

// One step from an object to the label's value: an attribute (`.path`) or a dict's str key
// (`['PATH_INFO']`).
struct LabelPathStep {
    enum class Kind { Attribute, Key } kind = Kind::Attribute;
    std::string name;
    bool operator==(const LabelPathStep&) const = default;
};

// Where a sample's label comes from (--label-from), labelled `key`: either the value, in
// the sampled thread's current contextvars.Context, of the ContextVar named `varName`; or
// (`function` set) a variable of the innermost frame of that function on the sampled
// stack, followed along `path` (KEY=FUNC:EXPR, e.g. route=do_GET:self.path).
//
// `--label-from otel` stands for three context-variable sources whose `span` says what of
// OpenTelemetry's current span each gives (see kOtelContextVar).
struct LabelSource {
    enum class Span { None, TraceId, SpanId, SpanName };
    std::string key;           // the label's name ("route")
    std::string varName;       // the ContextVar's name (its `name` argument)
    std::string function = {}; // "module:qualname", "qualname" or a bare function name
    std::string variable = {}; // the frame's local variable or argument
    std::vector<LabelPathStep> path = {};
    Span span = Span::None; // an OpenTelemetry span's field, not the variable's value
    bool fromFrame() const { return !function.empty(); }
    // The text --label-from takes for it (what a child profiler is given; "otel" for each
    // of the three span sources).
    std::string spec() const;
    bool operator==(const LabelSource&) const = default;
};

// OpenTelemetry's runtime context (opentelemetry-api, context/contextvars_context.py) is
// the ContextVar named "current_context"; its value, a dict (subclass), keeps the current
// span under the key "current-span-" followed by a UUID (context/__init__.py create_key).
inline constexpr std::string_view kOtelSpec = "otel";
inline constexpr std::string_view kOtelContextVar = "current_context";
inline constexpr std::string_view kOtelSpanKeyPrefix = "current-span-";
// The labels' names: Grafana's span profiles select a span's samples by span_id, and name
// them by span_name (grafana/otel-profiling-go).
inline constexpr std::string_view kTraceIdLabel = "trace_id";
inline constexpr std::string_view kSpanIdLabel = "span_id";
inline constexpr std::string_view kSpanNameLabel = "span_name";

// "NAME" (the label is called as the variable), "KEY=NAME", or "KEY=FUNC:EXPR" where EXPR
// is a variable with attributes and str keys after it (self.path, environ['PATH_INFO']);
// an error names what is wrong.
Result<LabelSource> parseLabelSource(std::string_view text);
// The same, where "otel" gives the three OpenTelemetry span sources (trace_id, span_id,
// span_name).
Result<std::vector<LabelSource>> parseLabelSources(std::string_view text);

// Whether a label's values name one span or trace each (span_id, trace_id): per-sample
// identifiers, which engines keep apart from the labels they index (Pyroscope stores
// span_id with the sample), so they are not folded into "other" like a route.
bool isPerRequestIdLabel(std::string_view key);

// Whether the function of a frame (its code's name, a qualified name from 3.11, and its
// file) is the one a frame label names: "do_GET" matches Handler.do_GET, "Handler.do_GET"
// matches it too (and do_GET in 3.8-3.10, whose code objects have no qualified name), and
// "app.views:handle" also asks for the file to be app/views.py (or app/views/__init__.py).
bool labelFunctionMatches(std::string_view wanted, std::string_view funcname,
                          std::string_view filename);

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
