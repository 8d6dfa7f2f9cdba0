#pragma once

#include "core/common/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace gilscope::push {

struct PushLabel {
    std::string name, value;
};

// Grafana Pyroscope's limits (pkg/validation): a series has at most 30 labels, names of at
// most 1024 bytes, values of at most 2048.
inline constexpr size_t kMaxLabels = 30;
inline constexpr size_t kMaxLabelNameLength = 1024;
inline constexpr size_t kMaxLabelValueLength = 2048;

// Prometheus' label name rule: [a-zA-Z_][a-zA-Z0-9_]*.
bool isValidLabelName(std::string_view name);
// Prometheus' metric name rule (the __name__ value): [a-zA-Z_:][a-zA-Z0-9_:]*.
bool isValidMetricName(std::string_view name);

// The checks Pyroscope applies to a pushed series' labels, so a push it would refuse is
// refused here, up front, with the reason: at least one label, at most kMaxLabels, valid
// names within the lengths, UTF-8 values, no name twice, a valid __name__ and a non-empty
// service_name.
Status validatePushLabels(const std::vector<PushLabel>& labels);

// "KEY=VALUE" of --label.
Result<PushLabel> parseLabelArgument(std::string_view text);

// The default service_name of a Python process from its command line (argv, as in
// /proc/PID/cmdline): the module of `-m MODULE`, else the script's file name without
// ".py", else the interpreter's name. Interpreter options before the script are skipped.
std::string serviceNameFromCommandLine(const std::vector<std::string>& argv);

} // namespace gilscope::push
