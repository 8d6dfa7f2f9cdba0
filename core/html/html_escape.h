#pragma once

#include <string>
#include <string_view>

namespace gilscope::html {

// Text for HTML content and attribute values, for every page gilscope writes (flame
// graphs, heatmaps): invalid UTF-8 becomes U+FFFD, a NUL too, and & < > " ' are escaped.
std::string htmlEscape(std::string_view text);

} // namespace gilscope::html
