#pragma once

// The few marshal types a pstats file holds (Python's marshal format, version 4 without
// references): dict, tuple, str, int, float, True/None. Python's pstats.Stats(path)
// loads what this writes with marshal.load().

#include <cstdint>
#include <string>
#include <string_view>

namespace gilscope::pstats {

class MarshalWriter {
public:
    void beginDict() { out_ += '{'; }
    void endDict() { out_ += '0'; } // TYPE_NULL closes a dict
    void tuple(uint32_t size);      // then `size` values
    void str(std::string_view utf8);
    void integer(int64_t v);
    void real(double v);
    void boolean(bool v) { out_ += v ? 'T' : 'F'; }

    const std::string& bytes() const { return out_; }

private:
    void u32(uint32_t v);
    std::string out_;
};

} // namespace gilscope::pstats
