#include "core/html/flame_page.h"

#include "core/html/assets.h"
#include "core/html/html_escape.h"

namespace gilscope::html {

std::string flameGraphPage(std::string_view title, std::string_view json) {
    const std::string escapedTitle = htmlEscape(title);
    // The markers in template order; each is replaced once, in the template only, so
    // nothing inserted (a function named like a marker) is ever replaced.
    const std::pair<std::string_view, std::string_view> fills[] = {
        {"<!--GILSCOPE_TITLE-->", escapedTitle},
        {"/*GILSCOPE_CSS*/", assets::flamegraph_css()},
        {"GILSCOPE_DATA", json},
        {"/*GILSCOPE_TEXT_JS*/", assets::flamegraph_text_js()},
        {"/*GILSCOPE_JS*/", assets::flamegraph_js()},
        {"/*GILSCOPE_PROBE_JS*/", assets::flamegraph_probe_js()},
    };
    const std::string_view tmpl = assets::flamegraph_html();
    std::string out;
    size_t size = tmpl.size();
    for (const auto& fill : fills)
        size += fill.second.size();
    out.reserve(size);
    size_t at = 0;
    for (const auto& [marker, text] : fills) {
        const size_t found = tmpl.find(marker, at);
        if (found == std::string_view::npos) continue; // a template without it
        out += tmpl.substr(at, found - at);
        out += text;
        at = found + marker.size();
    }
    out += tmpl.substr(at);
    return out;
}

} // namespace gilscope::html
