#include "core/remote/remote_objects.h"

#include "core/remote/struct_view.h"

namespace gilscope::remote {

namespace {

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; // lone surrogates (e.g. surrogateescape)
    if (cp > 0x10FFFF) cp = 0xFFFD;
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

} // namespace

std::string decodeUnicodeData(const uint8_t* data, size_t count, unsigned kind) {
    std::string out;
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        uint32_t cp = 0;
        if (kind == 1)
            cp = data[i];
        else if (kind == 2)
            cp = StructView(data, 2 * count).field<uint16_t>(2 * i);
        else
            cp = StructView(data, 4 * count).field<uint32_t>(4 * i);
        appendUtf8(out, cp);
    }
    return out;
}

std::optional<std::string> RemoteObjects::readString(uint64_t addr, size_t maxChars) {
    if (!plausibleAddress(addr)) return std::nullopt;
    // One read usually covers header and text: names and paths are short.
    uint8_t buf[512];
    return readString(addr, maxChars, {buf, mem_.readPartial(addr, buf, sizeof buf)});
}

std::optional<std::string> RemoteObjects::readString(uint64_t addr, size_t maxChars,
                                                     std::span<const uint8_t> prefix) {
    if (!plausibleAddress(addr)) return std::nullopt;
    const StructView header(prefix.data(), prefix.size());
    // Every offset comes from the target: each is checked against what was copied.
    const auto length = header.get<int64_t>(layout_.strLength);
    const auto stateField = header.get<uint32_t>(layout_.strState);
    if (!length || !stateField || !header.covers(0, layout_.strAsciiSize) ||
        !header.covers(0, layout_.strCompactSize))
        return std::nullopt;
    const uint32_t state = *stateField;
    const unsigned kind = (state >> 2) & 7;
    const bool compact = state & 0x20, ascii = state & 0x40;
    // A length no str can have (more than the address space) is a torn read.
    constexpr int64_t kMaxLength = int64_t{1} << 45;
    if (*length < 0 || *length > kMaxLength || !compact || (kind != 1 && kind != 2 && kind != 4) ||
        (ascii && kind != 1))
        return std::nullopt;
    const bool cut = static_cast<uint64_t>(*length) > maxChars;
    const size_t chars = cut ? maxChars : static_cast<size_t>(*length);
    const size_t dataOffset = ascii ? layout_.strAsciiSize : layout_.strCompactSize;
    const size_t bytes = chars * kind;
    std::string text;
    if (const StructView inline_ = header.sub(dataOffset, bytes); inline_.size() == bytes) {
        text = decodeUnicodeData(inline_.data(), chars, kind);
    } else {
        std::vector<uint8_t> data(bytes);
        if (!mem_.read(addr + dataOffset, data.data(), bytes)) return std::nullopt;
        text = decodeUnicodeData(data.data(), chars, kind);
    }
    if (cut) text += "\xE2\x80\xA6"; // U+2026 "…" in UTF-8
    return text;
}

std::optional<std::vector<uint8_t>> RemoteObjects::readBytes(uint64_t addr, size_t maxSize) {
    if (!plausibleAddress(addr)) return std::nullopt;
    uint8_t buf[512];
    const StructView header(buf, mem_.readPartial(addr, buf, sizeof buf));
    const auto size = header.get<int64_t>(layout_.bytesSize);
    if (!size || !header.covers(0, layout_.bytesData) || *size < 0 ||
        static_cast<uint64_t>(*size) > maxSize)
        return std::nullopt;
    const size_t n = static_cast<size_t>(*size);
    if (const StructView inline_ = header.sub(layout_.bytesData, n); inline_.size() == n)
        return std::vector<uint8_t>(inline_.data(), inline_.data() + n);
    std::vector<uint8_t> data(n);
    if (!mem_.read(addr + layout_.bytesData, data.data(), n)) return std::nullopt;
    return data;
}

} // namespace gilscope::remote
