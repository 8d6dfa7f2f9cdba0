#pragma once

#include "core/common/typed_id.h"

#include <cstdint>

namespace gilscope {

// A stack as the model keeps it: its leaf node in the StackInterner's prefix tree
// (StackId{0} is the empty stack). The tree's own links and the snapshot's per-node
// tables stay plain indices: they are positions in the snapshot's arrays.
using StackId = TypedId<struct StackIdTag>;

// A thread's slot in the model's thread table. 16 bits keep a sample record 12 bytes;
// the model refuses a slot past the last rather than sharing one.
using ThreadIndex = TypedId<struct ThreadIndexTag, uint16_t>;

} // namespace gilscope
