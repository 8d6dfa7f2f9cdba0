#include "core/util/python_version.h"

namespace gilscope {

std::string PythonVersion::majorMinor() const {
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string PythonVersion::str() const {
    std::string s = majorMinor() + "." + std::to_string(micro);
    if (level == 0xa) s += "a" + std::to_string(serial);
    if (level == 0xb) s += "b" + std::to_string(serial);
    if (level == 0xc) s += "rc" + std::to_string(serial);
    return s;
}

} // namespace gilscope
