#pragma once

// Samples per source line, and the calls between lines, from one ProfileSnapshot: the one
// home of the per-line figures that the window's source view and the `--heatmap` pages
// show. The rules follow CPython 3.15's heatmap collector, so both count the same.

#include "core/analysis/profile_snapshot.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope {

// One line: "own" counts samples whose leaf frame executes it; "total" counts samples with
// it anywhere on the stack, once per sample however many frames are on that line.
struct FileLineHeat {
    int32_t line = 0;
    uint64_t own = 0;
    uint64_t total = 0;
    // The own samples split by the instruction that ran (recorded with --opcodes), most
    // first: {opcode, samples}. Empty when the recording has no instructions.
    std::vector<std::pair<uint8_t, uint64_t>> opcodes;
};

// One source file with samples. own and total are the sums over its lines (CPython's
// "total samples" of a file); samples counts each sample with the file on its stack once.
struct FileHeat {
    std::string file;
    uint64_t own = 0;
    uint64_t total = 0;
    uint64_t samples = 0;
    std::vector<FileLineHeat> lines; // lines >= 0 with samples, by line
};

// Whether a frame's file is a source file: not "", "~", ".", "...", nor "<...>" or "[...]"
// (built-in, generated and artificial frames), as CPython's heatmap decides.
bool isSourceFile(std::string_view file);

// Every source file with samples, most samples first, then by total and name.
std::vector<FileHeat> lineHeatByFile(const ProfileSnapshot& s);

// The lines of one file (empty when it has no samples).
std::vector<FileLineHeat> fileLineHeat(const ProfileSnapshot& s, const std::string& file);

// A call from one line of a caller to a callee function, with the samples that ran
// through it (a recursion counts each call, as CPython's heatmap counts its edges).
struct LineCall {
    uint32_t callerFunc = 0;
    int32_t callerLine = 0;
    uint32_t calleeFunc = 0;
    uint64_t samples = 0;
};

// Every call the recording saw into a function whose file is a source file, most
// samples first.
std::vector<LineCall> lineCalls(const ProfileSnapshot& s);

} // namespace gilscope
