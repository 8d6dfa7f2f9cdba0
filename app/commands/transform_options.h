#pragma once

// The call-tree transform options of `report`, `diff` and the HTML flame graph outputs
// (--merge, --focus, --collapse-recursion, ...): the window's right-click transforms, so a
// CI check and a shared page show the view a user built. They apply in the order given.

#include "app/commands/output_options.h"
#include "core/analysis/call_transforms.h"
#include "core/common/error.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>

namespace gilscope::cli {

const QList<QCommandLineOption>& transformOptions();
// The transforms given, in command-line order; a FUNC is NAME or FILE:NAME (FILE: a path
// or its last parts).
Result<TransformStack> readTransforms(const QCommandLineParser& parser);
// Applies them in order to each side (one recording, or diff's two), refusing one whose
// function or module is on no side at that point: a misspelt name must not pass a CI
// check unnoticed.
// The transforms of an output: only the HTML flame graphs draw trees to reshape.
Status readOutputTransforms(const QCommandLineParser& parser, OutputOptions& output);

using Snapshots = std::vector<std::shared_ptr<const ProfileSnapshot>>;
Result<Snapshots> applyTransformOptions(Snapshots sides, const TransformStack& transforms);

} // namespace gilscope::cli
