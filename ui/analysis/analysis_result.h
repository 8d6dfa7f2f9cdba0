#pragma once

#include "core/analysis/call_transforms.h"
#include "core/analysis/profile_snapshot.h"
#include "core/analysis/profile_views.h"

#include <QColor>
#include <QMetaType>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace gilscope::ui {

// Everything the analysis views show for one filter, computed on a worker thread and
// handed to the GUI thread whole: plain values, no pointers into the live model.
struct AnalysisResult {
    uint64_t generation = 0; // of the request; older ones are dropped
    // Which model (recording) it came from: within one, function ids keep their meaning
    // and the views update in place; a new model's first result replaces everything.
    uint64_t modelSerial = 0;
    std::shared_ptr<const ProfileSnapshot> snapshot;
    std::vector<FunctionRow> functions;
    CallTree topDown;
    CallTree bottomUp;
    QString error; // a failed query (spill read error)
};
using AnalysisResultPtr = std::shared_ptr<const AnalysisResult>;

// "pkg" for .../site-packages/pkg/x.py, "json" for /usr/lib/python3.12/json/x.py, else
// the file's base name without .py: what a flame graph colours by.
QString moduleOf(const std::string& file);
// A frame's fill, stable per module (a user learns that teal is json, orange is their
// app), as the flame graph and the stack chart draw it; and that fill while a search
// highlights matches (magenta) and fades the rest.
QColor moduleColor(const std::string& file);
// A function's fill in the flame graph and stack chart: core's frameColor.
QColor functionColor(const FunctionInfo& f);
QColor searchedFill(const QColor& fill, bool searching, bool matched);
// "name" and "file:line" of a function, for display.
QString functionName(const ProfileSnapshot& s, uint32_t func);
QString functionLocation(const ProfileSnapshot& s, uint32_t func);
// Which threads the views count: "all 7 threads", or the selected ones, "3 of 7 threads".
QString threadsShown(const ProfileSnapshot& s);
// What a request asks for, before its answer is there: "thread 1000 · 2.000 s – 4.500 s ·
// On CPU · Merge: wrapper" (times from the recording's origin).
QString requestShown(const ProfileFilter& f, const TransformStack& transforms, uint64_t originUs);

} // namespace gilscope::ui

Q_DECLARE_METATYPE(gilscope::ui::AnalysisResultPtr)
