#pragma once

// Reading the HTML flame graph pages back: the functions table and the comparison tables
// as Chromium rendered them, and CPython 3.15's page data.

#include <QMap>
#include <QString>

namespace gilscope::test {

struct RenderedFunction {
    QString file; // "file:line" without the line
    double ownPct = 0, totalPct = 0;
    qint64 own = 0, total = 0;
};
// The page's functions table (every row, shown or folded), by function name; a name in
// several files keeps the one with most samples.
QMap<QString, RenderedFunction> renderedFunctions(const QString& dom);
// The same, keyed by "name\nfile".
QMap<QString, RenderedFunction> renderedFunctionsByFile(const QString& dom);

// A row of the comparison's "grew" or "shrank" table: the function's total share in the
// baseline and now, and the change in points.
struct RenderedChange {
    double base = 0, now = 0, delta = 0;
};
QMap<QString, RenderedChange> renderedChanges(const QString& dom, const QString& rowClass);

// CPython's page: own samples per "funcname\nfilename" (the sum of its nodes' self
// samples), and the samples its pruning left out (a node whose value exceeds its self
// plus its children's values lost children under 0.1 % of the samples). Control
// characters in names are written \xNN, as the gilscope page shows them.
struct CpythonPage {
    bool ok = false;
    QMap<QString, qint64> own;
    qint64 pruned = 0;
};
CpythonPage readCpythonPage(const QString& path);

} // namespace gilscope::test
