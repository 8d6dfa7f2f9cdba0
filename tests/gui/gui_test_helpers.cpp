#include "tests/gui/gui_test_helpers.h"

#include "tests/support/shared_dir.h"

#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>
#include <QToolBar>
#include <QToolButton>
#include <QWidget>

namespace gilscope::test {

bool clickAction(QWidget* window, QAction* action) {
    for (QToolBar* bar : window->findChildren<QToolBar*>()) {
        auto* button = qobject_cast<QToolButton*>(bar->widgetForAction(action));
        if (!button || !button->isEnabled()) continue;
        QTest::mouseClick(button, Qt::LeftButton);
        return true;
    }
    return false;
}

bool readGeckoProfile(const QString& path, QJsonObject* profile, qint64* samples, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot open ") + path;
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = QStringLiteral("not valid JSON: ") + parseError.errorString();
        return false;
    }
    *profile = doc.object();
    *samples = 0;
    for (const auto& thread : profile->value(QStringLiteral("threads")).toArray())
        *samples += thread.toObject()
                        .value(QStringLiteral("samples"))
                        .toObject()
                        .value(QStringLiteral("length"))
                        .toInteger();
    return true;
}

QString checkGeckoProblems(const QString& path) {
    if (!haveSharedDir()) return {};
    QProcess checker;
    checker.start(QStringLiteral("python3"),
                  {sharedDir() + QStringLiteral("/tools/check-gecko"), path});
    if (!checker.waitForFinished(60000)) return QStringLiteral("check-gecko did not finish");
    if (checker.exitCode() == 0) return {};
    return QString::fromUtf8(checker.readAllStandardOutput() + checker.readAllStandardError());
}

} // namespace gilscope::test
