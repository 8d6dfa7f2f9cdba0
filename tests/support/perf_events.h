#pragma once

#include <QString>

namespace gilscope::test {

// Why this kernel refuses perf events on our own threads (what --native-stacks needs
// without --blocking), or empty when it allows them. Tests of that mode skip with this
// reason where the machine forbids it (a container without perf, paranoid level 3 for a
// non-root user); --blocking's tests run everywhere.
QString perfEventsRefused();

} // namespace gilscope::test
