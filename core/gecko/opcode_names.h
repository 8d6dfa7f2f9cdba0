#pragma once

#include <cstdint>
#include <string>

namespace gilscope {

// What CPython's profiling.sampling.opcode_utils.get_opcode_info() says about an
// opcode number, from the opcode tables of the target's own CPython 3.<pythonMinor>
// (generated from each released version's opcode modules: scripts/gen_opcode_tables.sh).
// Versions without a table (before 3.8, after 3.15) use 3.15's.
struct OpcodeInfo {
    std::string opname;     // "LOAD_ATTR_INSTANCE_VALUE", or "<N>" when unknown
    std::string baseOpname; // "LOAD_ATTR" for a specialization, else opname
    bool isSpecialized = false;
};

OpcodeInfo opcodeInfo(uint32_t opcode, int pythonMinor);

// format_opcode(): "NAME (BASE)" for specialized opcodes, else the name.
std::string formatOpcode(uint32_t opcode, int pythonMinor);

} // namespace gilscope
