#include "app/commands/transform_options.h"

#include "core/analysis/module_color.h"
#include "core/analysis/profile_views.h"
#include "core/sample/sample_label.h"

#include <map>

namespace gilscope::cli {

namespace {

FunctionRef functionArgument(const QString& text) {
    const int colon = text.lastIndexOf(':');
    if (colon <= 0) return {text.toStdString(), {}};
    return {text.mid(colon + 1).toStdString(), text.left(colon).toStdString()};
}

// Whether a function (a module) is on a stack with kept samples.
bool anyFunction(const ProfileSnapshot& s, const FunctionRef& ref) {
    for (const FunctionRow& r : functionTable(s))
        if (functionMatches(ref, s.functions[r.func])) return true;
    return false;
}

bool anyModule(const ProfileSnapshot& s, const std::string& module) {
    for (const FunctionRow& r : functionTable(s))
        if (moduleOf(s.functions[r.func].file) == module) return true;
    return false;
}

} // namespace

const QList<QCommandLineOption>& transformOptions() {
    static const QList<QCommandLineOption> table{
        {"merge", "Remove FUNC from every stack; its time goes to its caller (repeatable).",
         "FUNC"},
        {"focus", "Only the stacks through FUNC, each cut to start at its outermost call.", "FUNC"},
        {"focus-module",
         "Only MODULE's frames (\"myapp\", \"django\"); stacks without any are "
         "dropped.",
         "MODULE"},
        {"collapse-recursion",
         "Collapse recursion of every function: A > B > A > C becomes A > C."},
        {"collapse-direct-recursion",
         "Collapse direct recursion only: A > A > A > C becomes A > C."},
        {"collapse-module",
         "Make MODULE's consecutive frames one frame ([django], [stdlib: asyncio]); "
         "\"third-party\" collapses every installed package.",
         "MODULE"},
        {"drop", "Drop the samples with FUNC on the stack.", "FUNC"},
        {"invert", "Leaf-rooted trees: the flame graph and trees start at the leaves."},
        {"label-filter",
         "Only the samples labelled KEY=VALUE (see --label-from): one route's, tenant's or "
         "request's time.",
         "KEY=VALUE"},
    };
    return table;
}

Result<TransformStack> readTransforms(const QCommandLineParser& parser) {
    TransformStack out;
    std::map<QString, int> used; // per option: values taken so far
    for (const QString& name : parser.optionNames()) {
        const QStringList values = parser.values(name);
        const QString value = used[name] < values.size() ? values[used[name]] : QString();
        ++used[name];
        CallTransform t;
        if (name == "merge" || name == "focus" || name == "drop") {
            t.kind = name == "merge"   ? TransformKind::MergeFunction
                     : name == "focus" ? TransformKind::FocusFunction
                                       : TransformKind::DropFunction;
            t.function = functionArgument(value);
            if (t.function.name.empty())
                return makeError(ErrorKind::BadArguments,
                                 "--" + name.toStdString() + " needs a function name");
        } else if (name == "focus-module") {
            t.kind = TransformKind::FocusModule;
            t.module = value.toStdString();
        } else if (name == "collapse-module") {
            t.kind = value == "third-party" ? TransformKind::CollapseThirdParty
                                            : TransformKind::CollapseModule;
            if (t.kind == TransformKind::CollapseModule) t.module = value.toStdString();
        } else if (name == "collapse-recursion") {
            t.kind = TransformKind::CollapseRecursion;
        } else if (name == "collapse-direct-recursion") {
            t.kind = TransformKind::CollapseDirectRecursion;
        } else if (name == "invert") {
            t.kind = TransformKind::Invert;
        } else if (name == "label-filter") {
            // A label is a root pseudo-frame (sample_label.h): focusing on it keeps the
            // samples that carry it, and only those.
            const int eq = value.indexOf('=');
            if (eq <= 0)
                return makeError(ErrorKind::BadArguments, "--label-filter needs KEY=VALUE, not \"" +
                                                              value.toStdString() + "\"");
            t.kind = TransformKind::FocusFunction;
            t.function = {
                labelFrameName(value.left(eq).toStdString(), value.mid(eq + 1).toStdString()),
                std::string(kLabelFile)};
        } else {
            continue;
        }
        out.push_back(std::move(t));
    }
    return out;
}

Status readOutputTransforms(const QCommandLineParser& parser, OutputOptions& output) {
    auto transforms = readTransforms(parser);
    if (!transforms) return transforms.error();
    if (!transforms->empty() && output.format != OutputFormat::Flamegraph &&
        output.format != OutputFormat::DiffFlamegraph)
        return makeError(ErrorKind::BadArguments,
                         "--merge, --focus, --focus-module, --collapse-*, --drop, --invert and "
                         "--label-filter are only valid with --flamegraph or --diff-flamegraph "
                         "(and in `gilscope report` and `gilscope diff`)");
    output.transforms = std::move(*transforms);
    return {};
}

Result<Snapshots> applyTransformOptions(Snapshots sides, const TransformStack& transforms) {
    for (const CallTransform& t : transforms) {
        const bool byFunction = !t.function.name.empty();
        const bool byModule =
            t.kind == TransformKind::FocusModule || t.kind == TransformKind::CollapseModule;
        bool function = false, module = false;
        for (const auto& s : sides) {
            function = function || anyFunction(*s, t.function);
            module = module || anyModule(*s, t.module);
        }
        const auto label = labelOfFrame(t.function.file, t.function.name);
        if (label && !function)
            return makeError(ErrorKind::BadArguments, "--label-filter " + std::string(label->key) +
                                                          "=" + std::string(label->value) +
                                                          ": no sample has that label");
        if (byFunction && !function)
            return makeError(ErrorKind::BadArguments,
                             transformLabel(t) + ": no function \"" + t.function.name + "\"" +
                                 (t.function.file.empty() ? "" : " in " + t.function.file) +
                                 " in the recording");
        if (byModule && !module)
            return makeError(ErrorKind::BadArguments, transformLabel(t) + ": no module \"" +
                                                          t.module + "\" in the recording");
        for (auto& s : sides) {
            auto next = applyTransforms(s, {t});
            if (!next) return makeError(ErrorKind::Cancelled, "cancelled");
            s = std::move(*next);
        }
    }
    return sides;
}

} // namespace gilscope::cli
