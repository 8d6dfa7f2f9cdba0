#include "core/sampler/rate_parser.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace gilscope {

namespace {

bool isSpace(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || c == '\x1c' || c == '\x1d' || c == '\x1e' ||
           c == '\x1f';
}

std::string stripLower(std::string_view in) {
    size_t b = 0, e = in.size();
    while (b < e && isSpace(in[b]))
        ++b;
    while (e > b && isSpace(in[e - 1]))
        --e;
    std::string out(in.substr(b, e - b));
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

size_t skipDigits(const std::string& s, size_t i) {
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        ++i;
    return i;
}

} // namespace

Result<uint64_t> parseSamplingRate(std::string_view text) {
    const std::string s = stripLower(text);
    const auto formatError = [&] {
        return makeError(ErrorKind::BadArguments,
                         "Invalid sampling rate format: " + s +
                             ". Expected: number followed by optional suffix (hz, khz, k) with "
                             "no spaces (e.g., 10khz)");
    };
    // (\d+(?:\.\d+)?)
    size_t i = skipDigits(s, 0);
    if (i == 0) return formatError();
    if (i < s.size() && s[i] == '.') {
        const size_t frac = skipDigits(s, i + 1);
        if (frac == i + 1) return formatError();
        i = frac;
    }
    const std::string number = s.substr(0, i);
    const std::string suffix = s.substr(i);
    double multiplier = 1;
    if (suffix == "khz" || suffix == "k")
        multiplier = 1000;
    else if (!suffix.empty() && suffix != "hz")
        return formatError();

    const double hz = std::strtod(number.c_str(), nullptr) * multiplier;
    if (!(hz > 0))
        return makeError(ErrorKind::BadArguments, "Sampling rate must be positive: " + s);
    const double interval = 1000000.0 / hz;
    if (interval < 1) return makeError(ErrorKind::BadArguments, "Sampling rate too high: " + s);
    return static_cast<uint64_t>(interval);
}

} // namespace gilscope
