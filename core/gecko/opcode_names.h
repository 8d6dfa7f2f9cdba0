#pragma once

#include <cstdint>
#include <string>

namespace gilscope {

// What CPython's profiling.sampling.opcode_utils.get_opcode_info() says about an
// opcode number, from CPython 3.15's opcode tables (Lib/_opcode_metadata.py).
struct OpcodeInfo {
    std::string opname;     // "LOAD_ATTR_INSTANCE_VALUE", or "<N>" when unknown
    std::string baseOpname; // "LOAD_ATTR" for a specialization, else opname
    bool isSpecialized = false;
};

OpcodeInfo opcodeInfo(uint32_t opcode);

// format_opcode(): "NAME (BASE)" for specialized opcodes, else the name.
std::string formatOpcode(uint32_t opcode);

} // namespace gilscope
