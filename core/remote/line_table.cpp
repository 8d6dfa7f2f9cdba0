#include "core/remote/line_table.h"

#include <cstdint>

namespace gilscope::remote {

namespace {

// Lines are summed in 64 bits: co_firstlineno may be as large as 2**31 - 1, and a line
// past what an int holds has no number (CPython 3.10+ reports None for it), rather than
// a wrapped negative one.
int32_t lineNumber(int64_t line) {
    return line < 0 || line > INT32_MAX ? -1 : static_cast<int32_t>(line);
}

// Columns are stored plus one (0 means none); a varint past what an int holds has none.
int32_t columnNumber(uint32_t stored) {
    return stored == 0 || stored > INT32_MAX ? -1 : static_cast<int32_t>(stored - 1);
}

SourceLocation lineOnly(int64_t line) {
    const int32_t l = lineNumber(line);
    return {l, l, -1, -1};
}

// co_lnotab (3.8/3.9): (addr_delta u8, line_delta i8) pairs.
SourceLocation lnotab(std::span<const uint8_t> t, int firstLine, int64_t addrq) {
    int64_t line = firstLine;
    int64_t addr = 0;
    for (size_t i = 0; i + 1 < t.size(); i += 2) {
        addr += t[i];
        if (addr > addrq) break;
        line += static_cast<int8_t>(t[i + 1]);
    }
    return lineOnly(line);
}

// PEP 626 interim table (3.10): (length in bytes u8, line_delta i8); -128 means "no line".
SourceLocation linetable310(std::span<const uint8_t> t, int firstLine, int64_t addrq) {
    if (addrq < 0) return lineOnly(firstLine);
    int64_t line = firstLine;
    int64_t end = 0;
    for (size_t i = 0; i + 1 < t.size(); i += 2) {
        const int64_t start = end;
        end += t[i];
        const int8_t delta = static_cast<int8_t>(t[i + 1]);
        int64_t current = -1;
        if (delta != -128) {
            line += delta;
            current = line;
        }
        if (start <= addrq && addrq < end) return lineOnly(current);
    }
    return {-1, -1, -1, -1};
}

// 3.11+ location table (Objects/locations.md).
class Cursor {
public:
    explicit Cursor(std::span<const uint8_t> t) : t_(t) {}
    bool atEnd() const { return pos_ >= t_.size(); }
    bool byte(uint8_t& b) {
        if (pos_ >= t_.size()) return false;
        b = t_[pos_++];
        return true;
    }
    bool varint(uint32_t& out) {
        uint8_t b = 0;
        if (!byte(b)) return false;
        out = b & 63;
        unsigned shift = 0;
        while (b & 64) {
            if (!byte(b) || shift > 24) return false;
            shift += 6;
            out |= static_cast<uint32_t>(b & 63) << shift;
        }
        return true;
    }
    bool svarint(int32_t& out) {
        uint32_t v = 0;
        if (!varint(v)) return false;
        out = (v & 1) ? -static_cast<int32_t>(v >> 1) : static_cast<int32_t>(v >> 1);
        return true;
    }
    // Skips to the next entry start (a byte with the high bit set).
    void skipToEntry() {
        while (pos_ < t_.size() && !(t_[pos_] & 0x80))
            ++pos_;
    }

private:
    std::span<const uint8_t> t_;
    size_t pos_ = 0;
};

SourceLocation locations311(std::span<const uint8_t> t, int firstLine, int64_t byteOffset) {
    const int64_t addrq = byteOffset / 2; // in code units
    Cursor c(t);
    int64_t line = firstLine;
    int64_t addr = 0;
    while (!c.atEnd()) {
        uint8_t first = 0;
        if (!c.byte(first) || !(first & 0x80)) return {};
        const int code = (first >> 3) & 15;
        const int64_t len = (first & 7) + 1;
        SourceLocation loc;
        bool ok = true;
        if (code == 15) {
            loc = {-1, -1, -1, -1};
        } else if (code == 14) {
            int32_t delta = 0;
            uint32_t endDelta = 0, col = 0, endCol = 0;
            ok = c.svarint(delta) && c.varint(endDelta) && c.varint(col) && c.varint(endCol);
            line += delta;
            loc = {lineNumber(line), lineNumber(line + endDelta), columnNumber(col),
                   columnNumber(endCol)};
        } else if (code == 13) {
            int32_t delta = 0;
            ok = c.svarint(delta);
            line += delta;
            loc = lineOnly(line);
        } else if (code >= 10) {
            uint8_t col = 0, endCol = 0;
            ok = c.byte(col) && c.byte(endCol);
            line += code - 10;
            loc = {lineNumber(line), lineNumber(line), col, endCol};
        } else {
            uint8_t second = 0;
            ok = c.byte(second);
            const int32_t col = code * 8 + ((second >> 4) & 7);
            loc = {lineNumber(line), lineNumber(line), col, col + (second & 15)};
        }
        if (!ok) return {};
        if (addr <= addrq && addrq < addr + len) return loc;
        addr += len;
        c.skipToEntry();
    }
    return {};
}

} // namespace

SourceLocation lookupLocation(LineTableFormat format, std::span<const uint8_t> table, int firstLine,
                              int64_t byteOffset) {
    switch (format) {
    case LineTableFormat::Lnotab:
        return lnotab(table, firstLine, byteOffset);
    case LineTableFormat::Linetable310:
        return linetable310(table, firstLine, byteOffset);
    case LineTableFormat::Locations311:
        return locations311(table, firstLine, byteOffset);
    }
    return {};
}

} // namespace gilscope::remote
