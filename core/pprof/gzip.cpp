#include "core/pprof/gzip.h"

#include <zlib.h>

#include <cstdint>

namespace gilscope::pprof {

Result<std::string> gzipCompress(std::string_view data, int level) {
    if (data.size() > UINT32_MAX / 2) // zlib's counts are 32-bit
        return makeError(ErrorKind::Internal, "the profile is too large to compress in one piece");
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return makeError(ErrorKind::Internal, "cannot start zlib's compressor");
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    const size_t written = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        return makeError(ErrorKind::Internal, "zlib could not compress the profile");
    out.resize(written);
    return out;
}

} // namespace gilscope::pprof
