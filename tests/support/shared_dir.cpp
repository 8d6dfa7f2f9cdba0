#include "tests/support/shared_dir.h"

#include <QDir>
#include <QFileInfo>

namespace gilscope::test {

QString sharedDir() {
    const QByteArray env = qgetenv("GILSCOPE_SHARED_DIR");
    if (!env.isEmpty()) return QString::fromLocal8Bit(env);
    return QDir::cleanPath(QStringLiteral(GILSCOPE_SHARED_DIR));
}

bool haveSharedDir() {
    return QFileInfo(sharedDir() + QStringLiteral("/fixtures")).isDir();
}

QString fixturePath(const QString& relative) {
    return sharedDir() + QStringLiteral("/fixtures/") + relative;
}

QString gilscopeBinary() {
    return QString::fromLocal8Bit(qgetenv("GILSCOPE_BIN"));
}

} // namespace gilscope::test
