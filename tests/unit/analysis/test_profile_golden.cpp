// The call tree ProfileModel builds from each shared .bin fixture (written by CPython)
// equals the tree in the Gecko profile CPython exported from the same file: the same
// root-to-leaf paths of (function, file name), each with the same sample count.
#include "core/analysis/profile_model.h"
#include "core/analysis/profile_views.h"
#include "core/tach/tach_reader.h"
#include "core/util/utf8.h"
#include "tests/support/shared_dir.h"

#include <QDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <string>

using namespace gilscope;
using gilscope::test::fixturePath;

namespace {

using Paths = std::map<std::string, uint64_t>; // "name@file;name@file..." root first -> samples

std::string key(const std::string& name, const std::string& file) {
    return name + "@" + file;
}

Paths geckoPaths(const std::string& path) {
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in);
    const auto& strings = j["shared"]["stringArray"];
    auto str = [&](const nlohmann::json& v) {
        return v.is_null() ? std::string() : strings[v.get<size_t>()].get<std::string>();
    };
    Paths out;
    for (const auto& t : j["threads"]) {
        const auto& stacks = t["stackTable"];
        const auto& frames = t["frameTable"];
        const auto& funcs = t["funcTable"];
        for (const auto& s : t["samples"]["stack"]) {
            if (s.is_null()) continue;
            std::vector<std::string> leafFirst;
            for (auto i = s; !i.is_null(); i = stacks["prefix"][i.get<size_t>()]) {
                const size_t frame = stacks["frame"][i.get<size_t>()];
                const size_t func = frames["func"][frame];
                leafFirst.push_back(key(str(funcs["name"][func]), str(funcs["fileName"][func])));
            }
            std::string p;
            for (auto it = leafFirst.rbegin(); it != leafFirst.rend(); ++it)
                p += (p.empty() ? "" : ";") + *it;
            ++out[p];
        }
    }
    return out;
}

void flatten(const ProfileSnapshot& s, const CallTree& tree, uint32_t node,
             const std::string& prefix, Paths& out) {
    const auto children = tree.children(node);
    for (uint32_t c : std::vector<uint32_t>(children.begin(), children.end())) {
        const FunctionInfo& f = s.functions[tree.func(c)];
        // Gecko names a function's file by its base name, in valid UTF-8, and gives
        // pseudo-files ("<frozen runpy>") none, except <stdin> and <string>.
        const bool python = !f.file.starts_with('<') || f.file == "<stdin>" || f.file == "<string>";
        const std::string base = python ? f.file.substr(f.file.rfind('/') + 1) : std::string();
        const std::string p =
            (prefix.empty() ? "" : prefix + ";") + key(sanitizeUtf8(f.name), sanitizeUtf8(base));
        if (tree.self(c)) out[p] += tree.self(c);
        flatten(s, tree, c, p, out);
    }
}

} // namespace

class TestProfileGolden : public QObject {
    Q_OBJECT
private slots:
    void callTreeEqualsGecko_data() {
        QTest::addColumn<QString>("name");
        for (const char* n :
             {"tiny", "medium", "real-315", "rle-long", "stats", "unicode", "utf8-replace"})
            QTest::newRow(n) << QString(n);
    }
    void callTreeEqualsGecko() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        const QString bin = fixturePath("tach/" + name + ".bin");
        const QString gecko = fixturePath("tach/" + name + ".gecko.json");
        QVERIFY2(QFile::exists(bin) && QFile::exists(gecko), qPrintable(bin));
        auto reader = TachReader::open(bin.toStdString());
        QVERIFY2(reader.ok(), reader.ok() ? "" : reader.error().message.c_str());
        ProfileModel model;
        auto replayed = reader->replay(model);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().message.c_str());
        auto snap = model.query({});
        QVERIFY(snap.ok());
        Paths ours;
        flatten(**snap, topDownTree(**snap), 0, "", ours);
        const Paths theirs = geckoPaths(gecko.toStdString());
        QVERIFY(!theirs.empty());
        qInfo("%s: %zu distinct stacks, %llu samples", qPrintable(name), theirs.size(),
              static_cast<unsigned long long>((*snap)->matchedSamples));
        for (const auto& [p, n] : theirs) {
            const auto it = ours.find(p);
            QVERIFY2(it != ours.end(), ("missing path " + p).c_str());
            QVERIFY2(it->second == n, ("count of " + p + ": " + std::to_string(it->second) +
                                       " vs " + std::to_string(n))
                                          .c_str());
        }
        QCOMPARE(ours.size(), theirs.size());
    }
};

QTEST_GUILESS_MAIN(TestProfileGolden)
#include "test_profile_golden.moc"
