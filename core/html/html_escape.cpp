#include "core/html/html_escape.h"

#include "core/util/utf8.h"

namespace gilscope::html {

std::string htmlEscape(std::string_view text) {
    const std::string clean = sanitizeUtf8(text);
    std::string out;
    out.reserve(clean.size());
    for (const char c : clean) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        case '\0':
            out += "\uFFFD";
            break;
        default:
            out += c;
        }
    }
    return out;
}

} // namespace gilscope::html
