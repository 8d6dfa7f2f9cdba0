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

namespace {

bool identifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// EXPR: a name, then `.name` and `['key']` / `["key"]` steps.
bool parseExpression(std::string_view expr, LabelSource& s) {
    size_t at = 0;
    auto name = [&](std::string& out) {
        const size_t start = at;
        while (at < expr.size() && identifierChar(expr[at]))
            ++at;
        out = std::string(expr.substr(start, at - start));
        return !out.empty() && !(out[0] >= '0' && out[0] <= '9');
    };
    if (!name(s.variable)) return false;
    while (at < expr.size()) {
        LabelPathStep step;
        if (expr[at] == '.') {
            ++at;
            if (!name(step.name)) return false;
        } else if (expr[at] == '[' && at + 1 < expr.size() &&
                   (expr[at + 1] == '\'' || expr[at + 1] == '"')) {
            const char quote = expr[at + 1];
            const size_t end = expr.find(quote, at + 2);
            if (end == std::string_view::npos || end + 1 >= expr.size() || expr[end + 1] != ']')
                return false;
            step.kind = LabelPathStep::Kind::Key;
            step.name = std::string(expr.substr(at + 2, end - at - 2));
            at = end + 2;
        } else {
            return false;
        }
        s.path.push_back(std::move(step));
    }
    return s.path.size() <= 8;
}

bool validFunction(std::string_view f) {
    if (f.empty() || f.size() > 256) return false;
    const size_t colon = f.find(':');
    if (colon != std::string_view::npos && (colon == 0 || f.find(':', colon + 1) != f.npos))
        return false;
    return std::all_of(f.begin(), f.end(), [](char c) {
        return identifierChar(c) || c == '.' || c == ':' || c == '<' || c == '>';
    });
}

} // namespace

Result<LabelSource> parseLabelSource(std::string_view text) {
    LabelSource s;
    const size_t eq = text.find('=');
    s.key = std::string(eq == std::string_view::npos ? text : text.substr(0, eq));
    const std::string_view source = eq == std::string_view::npos ? text : text.substr(eq + 1);
    const auto bad = [&](const std::string& why) {
        return makeError(ErrorKind::BadArguments,
                         "--label-from \"" + std::string(text) + "\": " + why);
    };
    if (!validKey(s.key))
        return bad("the label's name must be letters, digits, '_', '.' or '-' "
                   "(KEY=NAME, NAME or KEY=FUNC:EXPR)");
    // FUNC:EXPR: the expression starts after the last ':' outside a key's brackets.
    size_t colon = std::string_view::npos;
    for (size_t i = 0, depth = 0; i < source.size(); ++i) {
        depth += source[i] == '[';
        depth -= source[i] == ']' && depth > 0;
        if (source[i] == ':' && depth == 0) colon = i;
    }
    if (colon == std::string_view::npos) {
        s.varName = std::string(source);
        if (s.varName.empty() || s.varName.size() > 256) return bad("name the context variable");
        return s;
    }
    if (eq == std::string_view::npos)
        return bad("a label from a frame's variable needs a name: KEY=FUNC:EXPR");
    s.function = std::string(source.substr(0, colon));
    if (!validFunction(s.function))
        return bad("name the function as module:qualname, qualname or name");
    if (!parseExpression(source.substr(colon + 1), s))
        return bad("the expression must be a variable, then .attribute or ['key'] steps "
                   "(self.path, environ['PATH_INFO'])");
    return s;
}

Result<std::vector<LabelSource>> parseLabelSources(std::string_view text) {
    if (text == kOtelSpec) {
        const auto source = [](std::string_view key, LabelSource::Span span) {
            return LabelSource{std::string(key), std::string(kOtelContextVar), {}, {}, {}, span};
        };
        return std::vector<LabelSource>{source(kTraceIdLabel, LabelSource::Span::TraceId),
                                        source(kSpanIdLabel, LabelSource::Span::SpanId),
                                        source(kSpanNameLabel, LabelSource::Span::SpanName)};
    }
    auto one = parseLabelSource(text);
    if (!one) return one.error();
    return std::vector<LabelSource>{std::move(one).value()};
}

bool isPerRequestIdLabel(std::string_view key) {
    return key == kSpanIdLabel || key == kTraceIdLabel;
}

std::string LabelSource::spec() const {
    if (span != Span::None) return std::string(kOtelSpec);
    if (!fromFrame()) return key + "=" + varName;
    std::string out = key + "=" + function + ":" + variable;
    for (const LabelPathStep& step : path)
        out +=
            step.kind == LabelPathStep::Kind::Attribute ? "." + step.name : "['" + step.name + "']";
    return out;
}

bool labelFunctionMatches(std::string_view wanted, std::string_view funcname,
                          std::string_view filename) {
    std::string_view module;
    if (const size_t colon = wanted.find(':'); colon != std::string_view::npos) {
        module = wanted.substr(0, colon);
        wanted = wanted.substr(colon + 1);
    }
    const auto last = [](std::string_view name) {
        const size_t dot = name.rfind('.');
        return dot == std::string_view::npos ? name : name.substr(dot + 1);
    };
    const bool qualified = funcname.find('.') != std::string_view::npos;
    const bool named = funcname == wanted ||
                       (funcname.size() > wanted.size() && funcname.ends_with(wanted) &&
                        funcname[funcname.size() - wanted.size() - 1] == '.') ||
                       (!qualified && last(wanted) == funcname); // <= 3.10: the code's bare name
    if (!named || module.empty()) return named;
    std::string path(module);
    std::replace(path.begin(), path.end(), '.', '/');
    const auto endsWithPath = [&](const std::string& tail) {
        return filename == tail || (filename.size() > tail.size() && filename.ends_with(tail) &&
                                    filename[filename.size() - tail.size() - 1] == '/');
    };
    return endsWithPath(path + ".py") || endsWithPath(path + "/__init__.py");
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
