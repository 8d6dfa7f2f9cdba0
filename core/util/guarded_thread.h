#pragma once

#include <cstdio>
#include <exception>
#include <utility>

namespace gilscope {

// The body of a helper thread (the counters poller, the name watcher, the pusher, ...)
// that an exception ends alone: an uncaught one would call std::terminate and lose the
// recording. It says on stderr which helper stopped and why; the helper's owner sees a
// thread that has ended, as at its normal end.
template <typename Body>
auto guardedThreadBody(const char* what, Body body) {
    return [what, body = std::move(body)](auto&&... args) mutable {
        try {
            body(std::forward<decltype(args)>(args)...);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "gilscope: %s stopped: %s\n", what, e.what());
        } catch (...) {
            std::fprintf(stderr, "gilscope: %s stopped: unknown error\n", what);
        }
    };
}

} // namespace gilscope
