// libFuzzer target: line tables come from the target's memory and may be torn or hostile.
// Decoding any bytes, for any offset, must stay inside the span and end; no crash.
// Input: 1 byte format, 4 bytes first line, 8 bytes byte offset, then the table.
#include "core/remote/line_table.h"

#include <cstdint>
#include <cstring>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using gilscope::remote::LineTableFormat;
    if (size < 13) return 0;
    const LineTableFormat formats[] = {LineTableFormat::Lnotab, LineTableFormat::Linetable310,
                                       LineTableFormat::Locations311};
    const LineTableFormat format = formats[data[0] % 3];
    int32_t firstLine = 0;
    int64_t byteOffset = 0;
    std::memcpy(&firstLine, data + 1, 4);
    std::memcpy(&byteOffset, data + 5, 8);
    const std::span<const uint8_t> table(data + 13, size - 13);
    // The given offset, and every prefix of the table at a far offset (a torn read).
    (void)gilscope::remote::lookupLocation(format, table, firstLine, byteOffset);
    (void)gilscope::remote::lookupLocation(format, table, firstLine, int64_t{1} << 40);
    (void)gilscope::remote::lookupLocation(format, table.first(table.size() / 2), firstLine,
                                           byteOffset);
    return 0;
}
