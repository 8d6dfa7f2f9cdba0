#pragma once

// resources/html/*, embedded at build time by cmake/embed_file.cmake
// (core/html/sources.cmake).

#include <string_view>

namespace gilscope::assets {

std::string_view flamegraph_html();
std::string_view flamegraph_css();
std::string_view flamegraph_text_js();
std::string_view flamegraph_js();
std::string_view flamegraph_probe_js();

} // namespace gilscope::assets
