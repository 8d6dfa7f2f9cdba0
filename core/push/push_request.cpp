#include "core/push/push_request.h"

#include "core/push/push.pb.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <random>

namespace gilscope::push {

std::string newPushId() {
    std::random_device device; // the kernel's randomness: IDs of two gilscopes never collide
    std::uniform_int_distribution<unsigned> byte(0, 255);
    unsigned char b[16];
    for (unsigned char& c : b)
        c = static_cast<unsigned char>(byte(device));
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40); // version 4
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80); // RFC 4122 variant
    char text[37];
    std::snprintf(text, sizeof text,
                  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return text;
}

Result<std::string> encodePushRequest(const std::vector<PushLabel>& labels,
                                      std::string_view gzippedProfile, std::string_view id) {
    ::push::v1::PushRequest request;
    auto* series = request.add_series();
    for (const PushLabel& l : labels) {
        auto* pair = series->add_labels();
        pair->set_name(l.name);
        pair->set_value(l.value);
    }
    auto* sample = series->add_samples();
    sample->set_raw_profile(std::string(gzippedProfile));
    sample->set_id(std::string(id));
    std::string out;
    if (!request.SerializeToString(&out))
        return makeError(ErrorKind::Internal, "cannot encode the push request");
    return out;
}

namespace {

std::string base64(std::string_view in) {
    static constexpr char kDigits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= in.size(); i += 3) {
        const uint32_t v =
            uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
        for (int shift : {18, 12, 6, 0})
            out += kDigits[(v >> shift) & 63];
    }
    if (const size_t left = in.size() - i; left > 0) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16;
        if (left == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
        out += kDigits[(v >> 18) & 63];
        out += kDigits[(v >> 12) & 63];
        out += left == 2 ? kDigits[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

} // namespace

std::string encodeParcaWriteRaw(const std::vector<PushLabel>& labels,
                                std::string_view gzippedProfile) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const PushLabel& l : labels)
        pairs.push_back({{"name", l.name}, {"value", l.value}});
    const nlohmann::json request = {{"normalized", false},
                                    {"series",
                                     {{{"labels", {{"labels", pairs}}},
                                       {"samples", {{{"rawProfile", base64(gzippedProfile)}}}}}}}};
    // Labels were checked as valid names and UTF-8 values; `replace` keeps a missed byte
    // from throwing.
    return request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string pushIdOf(std::string_view body) {
    ::push::v1::PushRequest request;
    if (!request.ParseFromArray(body.data(), static_cast<int>(body.size()))) return {};
    if (request.series_size() == 0 || request.series(0).samples_size() == 0) return {};
    return request.series(0).samples(0).id();
}

} // namespace gilscope::push
