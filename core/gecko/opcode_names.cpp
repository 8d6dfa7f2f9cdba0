#include "core/gecko/opcode_names.h"

namespace gilscope {

namespace {

struct OpcodeEntry {
    const char* name;
    int base;
};

constexpr OpcodeEntry kOpcodes[256] = {
#include "core/gecko/opcode_table.inc"
};

std::string nameOf(uint32_t opcode) {
    if (opcode < 256 && kOpcodes[opcode].name) return kOpcodes[opcode].name;
    return "<" + std::to_string(opcode) + ">";
}

} // namespace

OpcodeInfo opcodeInfo(uint32_t opcode) {
    OpcodeInfo info;
    info.opname = nameOf(opcode);
    const int base = opcode < 256 && kOpcodes[opcode].name ? kOpcodes[opcode].base : -1;
    if (base >= 0) {
        info.baseOpname = nameOf(static_cast<uint32_t>(base));
        info.isSpecialized = true;
    } else {
        info.baseOpname = info.opname;
    }
    return info;
}

std::string formatOpcode(uint32_t opcode) {
    OpcodeInfo info = opcodeInfo(opcode);
    if (info.isSpecialized) return info.opname + " (" + info.baseOpname + ")";
    return info.opname;
}

} // namespace gilscope
