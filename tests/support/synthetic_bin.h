#pragma once

#include <cstdint>
#include <filesystem>

namespace gilscope::test {

// A `.bin` of `samples` thread-samples, written by gilscope's own TachWriter: 8 threads
// (1000..1007, 1000 the main one) at 10 kHz walking 3,000 related stacks of 10-60 frames
// drawn from 2,000 functions, their GIL state flipping now and then. The same bytes for
// the same count (a fixed seed): for tests and benchmarks of big recordings.
bool writeSyntheticBin(const std::filesystem::path& path, uint64_t samples);

} // namespace gilscope::test
