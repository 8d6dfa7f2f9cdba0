#pragma once

#include <QJsonObject>
#include <QString>

class QAction;
class QToolBar;
class QWidget;

namespace gilscope::test {

// Clicks the toolbar button of action, as a user would (fails if it is disabled).
bool clickAction(QWidget* window, QAction* action);

// Parses an exported Firefox Profiler file; *samples gets the sum of threads[].samples.length.
bool readGeckoProfile(const QString& path, QJsonObject* profile, qint64* samples, QString* error);

// Runs ../shared/tools/check-gecko on path when ../shared is present; "" if fine or absent.
QString checkGeckoProblems(const QString& path);

} // namespace gilscope::test
