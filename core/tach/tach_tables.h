#pragma once

#include "core/common/error.h"
#include "core/sample/frame_registry.h"
#include "core/tach/tach_info.h"

#include <cstdint>
#include <vector>

namespace gilscope::tach {

// A frame-table entry as stored: string indices are the file's, not yet checked
// (CPython checks them only when a sample uses the frame).
struct StoredFrame {
    uint32_t filename = 0;
    uint32_t funcname = 0;
    int32_t line = -1, endLine = -1, column = -1, endColumn = -1;
    uint8_t opcode = 255;
};

struct TachTables {
    std::vector<StringId> strings;   // file string index -> registry id
    std::vector<StoredFrame> frames; // file frame index -> entry
};

// Parses the string and frame tables. Both are bounded by the end of the file, not by
// the next table or the footer, as in CPython's reader. Counts must already have been
// checked against the file size (readLayout), so they may size the vectors.
// Strings are decoded as UTF-8 with U+FFFD replacement and interned into `registry`.
Result<TachTables> readTables(int fd, const TachInfo& info, FrameRegistry& registry);

} // namespace gilscope::tach
