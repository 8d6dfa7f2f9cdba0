#include "core/push/push_request.h"

#include "core/push/push.pb.h"

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

std::string pushIdOf(std::string_view body) {
    ::push::v1::PushRequest request;
    if (!request.ParseFromArray(body.data(), static_cast<int>(body.size()))) return {};
    if (request.series_size() == 0 || request.series(0).samples_size() == 0) return {};
    return request.series(0).samples(0).id();
}

} // namespace gilscope::push
