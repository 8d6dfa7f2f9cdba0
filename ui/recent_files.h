#pragma once

#include <QObject>
#include <QStringList>

class QMenu;
class QSettings;

namespace gilscope::ui {

// The recordings opened or saved lately, newest first, kept in the settings at once so
// a crash does not lose them. The start page's list and File › Open recent show them.
class RecentFiles : public QObject {
    Q_OBJECT
public:
    // settings: where the list is kept; none when null (tests).
    explicit RecentFiles(QSettings* settings, QObject* parent = nullptr);

    QStringList files() const { return files_; }
    void add(const QString& path);
    void clear();
    // Fills `menu` with one entry per file (they emit openRequested) and "Clear list".
    void fillMenu(QMenu* menu);

signals:
    void changed();
    void openRequested(const QString& path);

private:
    void store();

    QSettings* settings_;
    QStringList files_;
};

} // namespace gilscope::ui
