#include "core/sample/sample_label.h"

#include <algorithm>

namespace gilscope {

namespace {

constexpr std::string_view kPrefix = "<label ";

bool validKey(std::string_view key) {
    if (key.empty() || key.size() > 64) return false;
    return std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == '-';
    });
}

} // namespace

Result<LabelSource> parseLabelSource(std::string_view text) {
    LabelSource s;
    const size_t eq = text.find('=');
    s.key = std::string(eq == std::string_view::npos ? text : text.substr(0, eq));
    s.varName = std::string(eq == std::string_view::npos ? text : text.substr(eq + 1));
    if (!validKey(s.key))
        return makeError(ErrorKind::BadArguments,
                         "--label-from \"" + std::string(text) +
                             "\": the label's name must be letters, digits, '_', '.' or '-' "
                             "(KEY=NAME or NAME)");
    if (s.varName.empty() || s.varName.size() > 256)
        return makeError(ErrorKind::BadArguments,
                         "--label-from \"" + std::string(text) + "\": name the context variable");
    return s;
}

std::string shortLabelValue(std::string_view value) {
    if (value.size() <= kMaxLabelValueBytes) return std::string(value);
    size_t cut = kMaxLabelValueBytes - 3; // room for "…"
    while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80)
        --cut;
    return std::string(value.substr(0, cut)) + "\xE2\x80\xA6";
}

std::string labelFrameName(std::string_view key, std::string_view value) {
    std::string out(kPrefix);
    out += key;
    out += '=';
    out += shortLabelValue(value);
    out += '>';
    return out;
}

std::optional<SampleLabel> labelOfFrame(std::string_view filename, std::string_view funcname) {
    if (filename != kLabelFile || !funcname.starts_with(kPrefix) || !funcname.ends_with('>'))
        return std::nullopt;
    const std::string_view body =
        funcname.substr(kPrefix.size(), funcname.size() - kPrefix.size() - 1);
    const size_t eq = body.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    return SampleLabel{body.substr(0, eq), body.substr(eq + 1)};
}

} // namespace gilscope
