#pragma once

#include <string>
#include <string_view>

namespace gilscope {

// Replaces every invalid UTF-8 sequence with U+FFFD, the way Python's
// bytes.decode("utf-8", errors="replace") does, so JSON output is always valid.
std::string sanitizeUtf8(std::string_view in);
bool isValidUtf8(std::string_view in);

// For text output that keeps one item per line (ps, dump): sanitizeUtf8, then control
// characters escaped as Python's repr() escapes them, so a name can neither break a
// line nor reach the terminal as a control sequence: \n \r \t, a backslash as \\,
// other C0 and C1 controls and DEL as \xNN.
std::string escapeForDisplay(std::string_view in);

// Python's "surrogateescape" (PEP 383), as Python decodes file names and arguments: each
// byte that is not part of valid UTF-8 becomes a lone surrogate U+DC80..U+DCFF, and
// encoding turns it back into that byte, so any byte string passes through UTF-16 text
// (the CLI's QStrings) unchanged. Other lone surrogates encode as U+FFFD.
std::u16string decodeUtf8SurrogateEscape(std::string_view bytes);
std::string encodeUtf8SurrogateEscape(std::u16string_view text);

} // namespace gilscope
