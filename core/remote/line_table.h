#pragma once

#include "core/remote/python_layout.h"

#include <cstdint>
#include <span>

namespace gilscope::remote {

struct SourceLocation {
    int32_t line = -1, endLine = -1, column = -1, endColumn = -1;
};

// Finds the source location of a bytecode offset, as CPython's PyCode_Addr2Location does.
// `byteOffset` is in bytes from the start of the bytecode (f_lasti*2 in 3.10+, f_lasti in
// 3.8/3.9, instr_ptr - co_code_adaptive in 3.11+). Tables come from the target and may be
// torn: decoding never reads past the span and gives up on malformed input.
SourceLocation lookupLocation(LineTableFormat format, std::span<const uint8_t> table, int firstLine,
                              int64_t byteOffset);

} // namespace gilscope::remote
