#pragma once

#include <QString>

#include <functional>

namespace gilscope::cli {

// Hands a Firefox Profiler file to the browser, as the window's "Open in Firefox
// Profiler" does (net/profile_server.h): serves it once from 127.0.0.1 and opens the
// profiler's /from-url/ page with $GILSCOPE_BROWSER, $BROWSER or xdg-open, then waits
// until the browser has fetched it (5 minutes at most). profiler: empty for the window's
// setting, else https://profiler.firefox.com. Returns the exit code.
// interrupted: polled while waiting; true ends the wait (Ctrl-C).
int openInFirefoxProfiler(const QString& path, const QString& profiler = {},
                          const std::function<bool()>& interrupted = {});

} // namespace gilscope::cli
