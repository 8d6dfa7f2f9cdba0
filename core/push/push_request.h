#pragma once

#include "core/common/error.h"
#include "core/push/push_labels.h"

#include <string>
#include <string_view>
#include <vector>

namespace gilscope::push {

// A random UUID (version 4) as text: the ID of one pushed profile, so a push that is
// sent again after a lost answer can be told from a new profile.
std::string newPushId();

// The body of one push: a serialized push.v1.PushRequest holding one series (these
// labels) with one sample (the gzip'd pprof and its ID).
Result<std::string> encodePushRequest(const std::vector<PushLabel>& labels,
                                      std::string_view gzippedProfile, std::string_view id);

// The body of one Parca push (POST URL/api/profiles/writeraw, grpc-gateway's JSON of
// parca.profilestore.v1alpha1.WriteRawRequest): one series (these labels, __name__
// included) with one sample, the gzip'd pprof in base64. Parca has no push IDs.
std::string encodeParcaWriteRaw(const std::vector<PushLabel>& labels,
                                std::string_view gzippedProfile);

// The ID a body carries (for messages), empty when it cannot be decoded.
std::string pushIdOf(std::string_view body);

} // namespace gilscope::push
