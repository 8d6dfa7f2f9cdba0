#include "core/tach/tach_tables.h"

#include "core/tach/byte_window.h"
#include "core/tach/file_io.h"
#include "core/tach/tach_format.h"
#include "core/tach/varint.h"
#include "core/util/utf8.h"

#include <string>

namespace gilscope::tach {
namespace {

constexpr size_t kTableWindow = 256 * 1024;

// Reads one varint from the window; false when malformed or truncated.
Result<bool> readVarint32(ByteWindow& w, uint32_t& out) {
    auto avail = w.ensure(kMaxVarintSize);
    if (!avail) return avail.error();
    const size_t n = decodeVarint32(w.data(), w.data() + *avail, out);
    if (n == 0) return false;
    w.consume(n);
    return true;
}

Result<std::string> readStringBytes(ByteWindow& w, int fd, uint32_t len, uint64_t fileSize,
                                    uint64_t tableStart) {
    std::string bytes;
    if (len <= w.capacity()) {
        auto avail = w.ensure(len);
        if (!avail) return avail.error();
        if (*avail < len) return corrupt("String table overflow");
        bytes.assign(reinterpret_cast<const char*>(w.data()), len);
        w.consume(len);
        return bytes;
    }
    // Longer than the window: read it straight from the file (bounded by the file size).
    const uint64_t offset = tableStart + w.consumed();
    if (offset + len > fileSize) return corrupt("String table overflow");
    bytes.resize(len);
    if (auto s = readExact(fd, bytes.data(), len, offset); !s) return s.error();
    // Skip the bytes in the window, refilling as needed.
    uint64_t left = len;
    while (left > 0) {
        auto avail = w.ensure(static_cast<size_t>(std::min<uint64_t>(left, w.capacity())));
        if (!avail) return avail.error();
        if (*avail == 0) return corrupt("String table overflow");
        w.consume(*avail);
        left -= *avail;
    }
    return bytes;
}

Status readStrings(int fd, const TachInfo& info, FrameRegistry& registry, TachTables& out) {
    ByteWindow w(fd, info.stringTableOffset, info.fileSize, ByteWindow::Kind::Raw, kTableWindow);
    out.strings.reserve(info.stringCount);
    for (uint32_t i = 0; i < info.stringCount; ++i) {
        uint32_t len = 0;
        auto ok = readVarint32(w, len);
        if (!ok) return ok.error();
        if (!*ok) return corrupt("Malformed varint in string table");
        auto bytes = readStringBytes(w, fd, len, info.fileSize, info.stringTableOffset);
        if (!bytes) return bytes.error();
        out.strings.push_back(registry.internString(sanitizeUtf8(*bytes)));
    }
    // CPython reads on into the frame table; a count that makes it do so is corrupt.
    const uint64_t end = info.stringTableOffset + w.consumed();
    if (end > info.frameTableOffset)
        return corrupt(format("Invalid string table: %u string(s) end at byte %llu, inside the "
                              "frame table, which starts at byte %llu",
                              info.stringCount, static_cast<unsigned long long>(end),
                              static_cast<unsigned long long>(info.frameTableOffset)));
    return {};
}

Status readFrames(int fd, const TachInfo& info, TachTables& out) {
    ByteWindow w(fd, info.frameTableOffset, info.fileSize, ByteWindow::Kind::Raw, kTableWindow);
    out.frames.reserve(info.frameCount);
    static const char* const kFieldNames[6] = {"filename",         "funcname", "lineno",
                                               "end_lineno_delta", "column",   "end_column_delta"};
    for (uint32_t i = 0; i < info.frameCount; ++i) {
        uint32_t fields[6];
        for (int f = 0; f < 6; ++f) {
            auto ok = readVarint32(w, fields[f]);
            if (!ok) return ok.error();
            if (!*ok)
                return corrupt(format("Malformed varint in frame table (%s)", kFieldNames[f]));
        }
        auto avail = w.ensure(1);
        if (!avail) return avail.error();
        if (*avail < 1) return corrupt("Unexpected end of frame table (opcode)");
        StoredFrame frame;
        frame.filename = fields[0];
        frame.funcname = fields[1];
        frame.line = zigzagDecode(fields[2]);
        frame.endLine = frame.line == -1
                            ? -1
                            : static_cast<int32_t>(static_cast<uint32_t>(frame.line) +
                                                   static_cast<uint32_t>(zigzagDecode(fields[3])));
        frame.column = zigzagDecode(fields[4]);
        frame.endColumn =
            frame.column == -1
                ? -1
                : static_cast<int32_t>(static_cast<uint32_t>(frame.column) +
                                       static_cast<uint32_t>(zigzagDecode(fields[5])));
        frame.opcode = w.data()[0];
        w.consume(1);
        out.frames.push_back(frame);
    }
    // CPython reads on into the footer; a table that runs into it is corrupt.
    const uint64_t end = info.frameTableOffset + w.consumed();
    const uint64_t footer = info.fileSize - kFooterSize;
    if (end > footer)
        return corrupt(format("Invalid frame table: %u frame(s) end at byte %llu, inside the "
                              "footer, which starts at byte %llu",
                              info.frameCount, static_cast<unsigned long long>(end),
                              static_cast<unsigned long long>(footer)));
    return {};
}

} // namespace

Result<TachTables> readTables(int fd, const TachInfo& info, FrameRegistry& registry) {
    TachTables tables;
    if (auto s = readStrings(fd, info, registry, tables); !s) return s.error();
    if (auto s = readFrames(fd, info, tables); !s) return s.error();
    return tables;
}

} // namespace gilscope::tach
