#pragma once

// What every label reader must give over hostile memory, whatever it read: one value per
// source, none longer than kMaxLabelValueBytes, and a proof the same memory upholds.
#include "core/sample/sample_label.h"

#include <optional>
#include <string>
#include <vector>

namespace gilscope::test {

template <class Labels>
void checkLabelRead(Labels& labels, const std::vector<std::optional<std::string>>& values,
                    size_t sources) {
    if (values.size() != sources) __builtin_trap();
    for (const auto& v : values)
        if (v && v->size() > kMaxLabelValueBytes) __builtin_trap();
    const auto proof = labels.lastProof();
    if (proof.complete && !labels.stillHolds(proof)) __builtin_trap();
}

} // namespace gilscope::test
