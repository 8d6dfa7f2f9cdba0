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

// Opens a local file (an HTML page) as a file:// address with $GILSCOPE_BROWSER,
// $BROWSER or xdg-open, as CPython's --browser does; does not wait for the browser.
// Returns the exit code: 0, or 1 when no browser could be started.
int openFileInBrowser(const QString& path);

} // namespace gilscope::cli
