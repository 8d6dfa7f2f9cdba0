#include "tests/support/shared_dir.h"

#include <QDir>
#include <QFileInfo>

namespace gilscope::test {

// The only file that sees the checkout's absolute path (CMakeLists.txt): a path compiled
// into every test would make each checkout's build miss the compiler cache.
QString sourceDir() {
    return QStringLiteral(GILSCOPE_SOURCE_DIR);
}

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
