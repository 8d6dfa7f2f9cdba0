#include "core/gecko/opcode_names.h"

namespace gilscope {

namespace {

struct OpcodeEntry {
    const char* name;
    int base;
};

constexpr OpcodeEntry kOpcodes3_8[256] = {
#include "core/gecko/opcode_table_3_8.inc"
};
constexpr OpcodeEntry kOpcodes3_9[256] = {
#include "core/gecko/opcode_table_3_9.inc"
};
constexpr OpcodeEntry kOpcodes3_10[256] = {
#include "core/gecko/opcode_table_3_10.inc"
};
constexpr OpcodeEntry kOpcodes3_11[256] = {
#include "core/gecko/opcode_table_3_11.inc"
};
constexpr OpcodeEntry kOpcodes3_12[256] = {
#include "core/gecko/opcode_table_3_12.inc"
};
constexpr OpcodeEntry kOpcodes3_13[256] = {
#include "core/gecko/opcode_table_3_13.inc"
};
constexpr OpcodeEntry kOpcodes3_14[256] = {
#include "core/gecko/opcode_table_3_14.inc"
};
constexpr OpcodeEntry kOpcodes3_15[256] = {
#include "core/gecko/opcode_table_3_15.inc"
};

using Table = const OpcodeEntry*; // 256 entries

Table tableFor(int minor) {
    static const OpcodeEntry* const kTables[] = {kOpcodes3_8,  kOpcodes3_9,  kOpcodes3_10,
                                                 kOpcodes3_11, kOpcodes3_12, kOpcodes3_13,
                                                 kOpcodes3_14, kOpcodes3_15};
    return minor >= 8 && minor <= 15 ? kTables[minor - 8] : kOpcodes3_15;
}

std::string nameOf(Table table, uint32_t opcode) {
    if (opcode < 256 && table[opcode].name) return table[opcode].name;
    return "<" + std::to_string(opcode) + ">";
}

} // namespace

OpcodeInfo opcodeInfo(uint32_t opcode, int pythonMinor) {
    Table table = tableFor(pythonMinor);
    OpcodeInfo info;
    info.opname = nameOf(table, opcode);
    const int base = opcode < 256 && table[opcode].name ? table[opcode].base : -1;
    if (base >= 0) {
        info.baseOpname = nameOf(table, static_cast<uint32_t>(base));
        info.isSpecialized = true;
    } else {
        info.baseOpname = info.opname;
    }
    return info;
}

std::string formatOpcode(uint32_t opcode, int pythonMinor) {
    OpcodeInfo info = opcodeInfo(opcode, pythonMinor);
    if (info.isSpecialized) return info.opname + " (" + info.baseOpname + ")";
    return info.opname;
}

} // namespace gilscope
