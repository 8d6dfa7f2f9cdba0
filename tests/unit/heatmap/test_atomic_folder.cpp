// AtomicFolder: a folder appears whole or not at all; an earlier output of its kind is
// replaced in one step; anything else at the destination is refused and left as it was;
// what a killed writer left beside it is cleaned up.
#include "core/heatmap/heatmap_writer.h"
#include "core/util/atomic_folder.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

size_t entries(const fs::path& dir) {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++n;
    return n;
}

std::string read(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

class TestAtomicFolder : public QObject {
    Q_OBJECT
private slots:
    void appearsWholeOrNotAtAll() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString(), dest = dir / "hm";
        {
            auto f = AtomicFolder::create(dest, heatmap::isHeatmapEntry);
            QVERIFY(f);
            QVERIFY(f->writeFile("index.html", "one"));
            QVERIFY(!fs::exists(dest));
        } // dropped without commit: nothing is left
        QCOMPARE(entries(dir), size_t(0));
        auto f = AtomicFolder::create(dest, heatmap::isHeatmapEntry);
        QVERIFY(f && f->writeFile("index.html", "one") && f->commit());
        QCOMPARE(read(dest / "index.html"), std::string("one"));
        QCOMPARE(entries(dir), size_t(1));
    }

    void replacesOnlyItsOwnKind() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString(), dest = dir / "hm";
        fs::create_directory(dest);
        std::ofstream(dest / "file_0000.html") << "old";
        auto f = AtomicFolder::create(dest / "", heatmap::isHeatmapEntry); // "hm/" names hm
        QVERIFY(f && f->writeFile("index.html", "new") && f->commit());
        QVERIFY(!fs::exists(dest / "file_0000.html"));
        QCOMPARE(read(dest / "index.html"), std::string("new"));
        QCOMPARE(entries(dir), size_t(1));

        std::ofstream(dest / "notes.txt") << "mine";
        auto refused = AtomicFolder::create(dest, heatmap::isHeatmapEntry);
        QVERIFY(!refused);
        QVERIFY(refused.error().message.find("holds other files") != std::string::npos);
        QCOMPARE(read(dest / "notes.txt"), std::string("mine"));
        std::ofstream(dir / "plain") << "x";
        QVERIFY(!AtomicFolder::create(dir / "plain", heatmap::isHeatmapEntry));
        QVERIFY(!AtomicFolder::create(dir / "missing" / "hm", heatmap::isHeatmapEntry));
    }

    void staleTemporaryFoldersGo() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        pid_t dead = 0;
        if (const pid_t child = ::fork(); child == 0) {
            ::_exit(0);
        } else {
            QVERIFY(child > 0);
            dead = child;
            int status = 0;
            ::waitpid(child, &status, 0);
        }
        const fs::path stale = dir / (".hm.tmp-" + std::to_string(dead) + "-abcdef");
        fs::create_directories(stale / "sub");
        const fs::path alive = dir / (".hm.tmp-" + std::to_string(::getppid()) + "-abcdef");
        fs::create_directory(alive);
        auto f = AtomicFolder::create(dir / "hm", heatmap::isHeatmapEntry);
        QVERIFY(f);
        QVERIFY(!fs::exists(stale));
        QVERIFY(fs::exists(alive));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFolder)
#include "test_atomic_folder.moc"
