#pragma once

#include "core/common/error.h"
#include "core/tach/tach_info.h"

#include <cstdint>

namespace gilscope::tach {

// Reads and validates everything around the record stream: header, footer, table
// offsets, table counts (bounded by the file size) and the TACHSTAT block, in
// CPython's reader order and with its messages. sampleDataBytes is left 0.
Result<TachInfo> readLayout(int fd, uint64_t fileSize);

} // namespace gilscope::tach
