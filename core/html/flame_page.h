#pragma once

// The whole HTML file of a flame graph: resources/html/flamegraph.html with its style,
// script and data filled in. One file that needs nothing else.

#include <string>
#include <string_view>

namespace gilscope::html {

// `json` is flameGraphJson()'s text (safe inside a <script>); `title` is plain text.
std::string flameGraphPage(std::string_view title, std::string_view json);

} // namespace gilscope::html
