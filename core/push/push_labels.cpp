#include "core/push/push_labels.h"

#include "core/util/utf8.h"

#include <algorithm>
#include <set>

namespace gilscope::push {

namespace {

bool isAlpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

std::string baseName(std::string_view path) {
    const size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Python's options that take a value in the next argument (-c and -m end the options).
bool takesValue(std::string_view option) {
    return option == "-W" || option == "-X" || option == "-Q";
}

} // namespace

bool isValidLabelName(std::string_view name) {
    if (name.empty() || !isAlpha(name[0])) return false;
    return std::all_of(name.begin(), name.end(), [](char c) { return isAlpha(c) || isDigit(c); });
}

bool isValidMetricName(std::string_view name) {
    if (name.empty() || !(isAlpha(name[0]) || name[0] == ':')) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return isAlpha(c) || isDigit(c) || c == ':'; });
}

Status validatePushLabels(const std::vector<PushLabel>& labels) {
    auto refuse = [](std::string why) {
        return makeError(ErrorKind::BadArguments, "push labels: " + why);
    };
    if (labels.empty()) return refuse("at least one label is needed");
    if (labels.size() > kMaxLabels)
        return refuse(std::to_string(labels.size()) + " labels; Pyroscope takes at most " +
                      std::to_string(kMaxLabels));
    std::set<std::string_view> seen;
    for (const PushLabel& l : labels) {
        if (l.name.size() > kMaxLabelNameLength)
            return refuse("the label name '" + l.name.substr(0, 40) + "…' is longer than " +
                          std::to_string(kMaxLabelNameLength) + " bytes");
        if (!isValidLabelName(l.name))
            return refuse("'" + sanitizeUtf8(l.name) +
                          "' is not a valid label name (letters, digits and _, not first a digit)");
        if (l.value.size() > kMaxLabelValueLength)
            return refuse("the value of " + l.name + " is longer than " +
                          std::to_string(kMaxLabelValueLength) + " bytes");
        if (!isValidUtf8(l.value)) return refuse("the value of " + l.name + " is not UTF-8");
        if (!seen.insert(l.name).second) return refuse("the label " + l.name + " is given twice");
    }
    auto value = [&](std::string_view name) -> const std::string* {
        for (const PushLabel& l : labels)
            if (l.name == name) return &l.value;
        return nullptr;
    };
    if (const std::string* metric = value("__name__"); metric && !isValidMetricName(*metric))
        return refuse("'" + sanitizeUtf8(*metric) + "' is not a valid __name__");
    if (const std::string* service = value("service_name"); !service || service->empty())
        return refuse("service_name must not be empty");
    return {};
}

Result<PushLabel> parseLabelArgument(std::string_view text) {
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return makeError(ErrorKind::BadArguments,
                         "argument --label: expected KEY=VALUE, got '" + std::string(text) + "'");
    PushLabel label{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
    if (!isValidLabelName(label.name))
        return makeError(ErrorKind::BadArguments,
                         "argument --label: '" + sanitizeUtf8(label.name) +
                             "' is not a valid label name (letters, digits and _, not first a "
                             "digit)");
    return label;
}

std::string serviceNameFromCommandLine(const std::vector<std::string>& argv) {
    if (argv.empty()) return "python";
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "-m") return i + 1 < argv.size() ? argv[i + 1] : baseName(argv[0]);
        if (a.starts_with("-m") && a.size() > 2) return a.substr(2); // -mmodule
        if (a == "-c" || a == "-" || a == "--") break;
        if (a.starts_with("-")) {
            if (takesValue(a)) ++i;
            continue;
        }
        std::string name = baseName(a);
        if (name.ends_with(".py") && name.size() > 3) name.resize(name.size() - 3);
        if (name == "__main__") name = baseName(a.substr(0, a.rfind('/'))); // a package dir
        if (!name.empty()) return name;
        break;
    }
    std::string name = baseName(argv[0]);
    return name.empty() ? "python" : name;
}

} // namespace gilscope::push
