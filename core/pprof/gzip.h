#pragma once

#include "core/common/error.h"

#include <string>
#include <string_view>

namespace gilscope::pprof {

// A gzip member (RFC 1952) holding `data`, through zlib: pprof files and pushed
// profiles are gzip'd protobuf.
Result<std::string> gzipCompress(std::string_view data, int level = 6);

} // namespace gilscope::pprof
