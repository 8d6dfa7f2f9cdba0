// The kernel's per-thread syscall record and the socket tables, as a hostile or new
// kernel might print them (issue 36): parsed or classified "other", never a crash.
#include "core/remote/fd_describer.h"
#include "core/remote/thread_state_probe.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size); // NUL-terminated copy
    (void)gilscope::remote::ThreadStateProbe::parse(text.c_str());
    uint64_t sp = 0, pc = 0;
    (void)gilscope::remote::ThreadStateProbe::parseStackAndPc(text, sp, pc);
    using D = gilscope::remote::FdDescriber;
    const D::Tables tables{text, text, text, text, text};
    (void)D::describeLink("socket:[1111]", tables);
    if (size > 0) (void)D::describeLink(text, tables);
    return 0;
}
