#pragma once

// Reading heatmap folders back for the tests: gilscope's pages (their data-own and
// data-total attributes) and CPython 3.15's (the "Self: N, Total: M" tooltip of each
// line), and rendering a page in headless Chromium.

#include "tests/support/headless_chromium.h"

#include <QMap>
#include <QString>

namespace gilscope::test {

struct LineCounts {
    qint64 own = 0;
    qint64 total = 0;
    bool operator==(const LineCounts&) const = default;
};
using FileCounts = QMap<int, LineCounts>; // line -> counts, lines with samples only

// HTML text back to plain text (&amp; &lt; &gt; &quot; &#39; &#x27;).
QString htmlUnescape(QString text);

// file name -> page file name, from an index.html.
QMap<QString, QString> gilscopeIndex(const QString& dir);
QMap<QString, QString> cpythonIndex(const QString& dir);

FileCounts gilscopePage(const QString& path);
FileCounts cpythonPage(const QString& path);

QString readAll(const QString& path);

// The DOM headless Chromium builds from a file:// page (empty when it failed; *why says).
QString renderedDom(const QString& file, QString* why);

} // namespace gilscope::test
