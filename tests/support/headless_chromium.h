#pragma once

// Debian's chromium, headless, for tests and benchmarks of the HTML outputs: renders a
// local page offline (its proxy is a port nobody listens on, so any request the page
// tried would fail) and returns the DOM after the page's scripts ran.

#include <QString>

namespace gilscope::test {

// /usr/bin/chromium (or $GILSCOPE_CHROMIUM); empty when absent.
QString chromiumBinary();

struct RenderedPage {
    bool ok = false;
    QString dom;   // --dump-dom: the document after load
    QString error; // why not ok: chromium's exit and stderr
    double wallSec = 0;
};

// Renders file `path` (with `fragment`, e.g. "bench", after a #) and dumps its DOM.
RenderedPage renderPage(const QString& path, const QString& fragment = {}, int timeoutMs = 120000);

// The http(s) addresses in a file, but XML namespaces (www.w3.org), which name and
// fetch nothing.
QStringList webAddressesIn(const QString& path);

// A rendered page's <p id="status" ...> attribute, e.g. "data-requests".
QString statusAttribute(const QString& dom, const QString& name);

} // namespace gilscope::test

#define GILSCOPE_REQUIRE_CHROMIUM()                                                                \
    GILSCOPE_REQUIRE(!::gilscope::test::chromiumBinary().isEmpty(),                                \
                     "chromium is not installed (scripts/install-deps.sh --test installs it)")
