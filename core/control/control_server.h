#pragma once

#include "core/common/error.h"
#include "core/control/control_commands.h"

#include <memory>
#include <string>
#include <string_view>

namespace gilscope::control {

// The path of a control URI: "unix:PATH" (the only scheme, as CPython's); errors in
// CPython's words.
Result<std::string> parseControlUri(std::string_view uri);

// A Unix socket that takes line commands while a recording runs (--control unix:PATH),
// with CPython's rules: the socket is made with mode 0600, at most 8 connections (more
// are closed at once), a line longer than 4 KiB or 64 KiB of unsent replies closes its
// connection, and at the end the path is removed only if it is still the socket this
// server made. A path that exists already is refused (a stale socket is the user's to
// remove): two recordings never share one. One thread of its own polls the socket and
// answers through answer().
class ControlServer {
public:
    static Result<std::unique_ptr<ControlServer>> start(std::string_view uri, ControlTarget target);
    ~ControlServer(); // stops the thread, closes every connection, removes the socket
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    const std::string& path() const;

    static constexpr size_t kMaxConnections = 8;
    static constexpr size_t kMaxLineBytes = 4 * 1024;
    static constexpr size_t kMaxOutBytes = 64 * 1024;

private:
    struct Impl;
    explicit ControlServer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace gilscope::control
