// The HTML flame graph's page and data (core/html) from hand-written samples: the trees
// in preorder with their totals, per-thread views, a comparison's shares and lists, and
// a page that stays one safe, offline file whatever the function names hold.
#include "core/html/flame_page.h"
#include "core/html/flame_recorder.h"
#include "core/html/json_text.h"
#include "tests/support/synthetic_feed.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace gilscope;
using gilscope::test::SyntheticFeed;
using nlohmann::json;

// json and QCOMPARE do not mix (Qt's templates): compare, and show the JSON when unequal.
#define JSON_EQ(actual, expected) QVERIFY2((actual) == json(expected), (actual).dump().c_str())

namespace {

json pageData(const std::string& page) {
    const std::string open = "<script type=\"application/json\" id=\"gs-data\">";
    const size_t from = page.find(open) + open.size();
    return json::parse(page.substr(from, page.find("</script>", from) - from));
}

// Samples: main thread 6 x main>work>heavy, 3 x main>work>light, 1 x main; thread 2: 5 x idle.
void feed(SyntheticFeed& f, uint64_t heavy = 6, uint64_t light = 3) {
    const FrameId main = f.frame("/app/main.py", 1, "main");
    const FrameId work = f.frame("/app/main.py", 5, "work");
    const FrameId h = f.frame("/app/main.py", 9, "heavy");
    const FrameId l = f.frame("/usr/lib/python3.12/json/decoder.py", 20, "light");
    uint64_t t = 1000;
    auto times = [&t](uint64_t n) {
        std::vector<uint64_t> v;
        for (uint64_t i = 0; i < n; ++i)
            v.push_back(t += 1000);
        return v;
    };
    f.add(1, 0, {h, work, main}, times(heavy));
    f.add(1, 0, {l, work, main}, times(light));
    f.add(1, 0, {main}, times(1));
    f.add(2, 0, {f.frame("/app/pool.py", 3, "idle")}, times(5));
}

std::string nameOf(const json& d, int f) {
    return f < 0 ? "(root)" : d["strings"][d["funcs"]["name"][f].get<int>()].get<std::string>();
}

} // namespace

class TestFlamePage : public QObject {
    Q_OBJECT
private slots:
    void treesInPreorder() {
        html::FlameRecorderOptions options;
        options.target = "my target";
        html::FlameRecorder rec(options);
        SyntheticFeed f(rec);
        feed(f);
        rec.finish({});
        auto page = rec.page();
        QVERIFY(page.ok());
        const json d = pageData(*page);
        JSON_EQ(d["meta"]["target"], "my target");
        JSON_EQ(d["meta"]["samples"], 15);
        QCOMPARE(d["views"].size(), 3u); // all threads, then each thread, busiest first
        const json& all = d["views"][0];
        JSON_EQ(all["f"][0], -1);
        JSON_EQ(all["t"][0], 15);
        // Preorder, children by samples: main(10) work(9) heavy(6) light(3) idle(5).
        std::vector<std::string> names;
        for (const auto& fn : all["f"])
            names.push_back(nameOf(d, fn.get<int>()));
        QCOMPARE(names,
                 (std::vector<std::string>{"(root)", "main", "work", "heavy", "light", "idle"}));
        JSON_EQ(all["p"], json::parse("[0,0,1,2,2,0]"));
        JSON_EQ(all["t"], json::parse("[15,10,9,6,3,5]"));
        JSON_EQ(all["s"], json::parse("[0,1,0,6,3,5]"));
        JSON_EQ(d["views"][1]["tid"], 1);
        JSON_EQ(d["views"][1]["t"][0], 10);
        JSON_EQ(d["views"][2]["t"][0], 5);
        // Modules and their colours, one per module.
        const json& mods = d["modules"]["name"];
        QVERIFY(std::find(mods.begin(), mods.end(), "json") != mods.end());
        QVERIFY(std::find(mods.begin(), mods.end(), "main") != mods.end());
        QCOMPARE(d["modules"]["color"].size(), mods.size());
        QVERIFY(!d.contains("diff"));
    }

    void comparison() {
        // Baseline 70/30 between heavy and light; now 30/70.
        auto baseModel = std::make_shared<ProfileFile>();
        baseModel->model = std::make_shared<ProfileModel>();
        SyntheticFeed b(*baseModel->model);
        feed(b, 7, 3);
        baseModel->model->finish({});
        html::FlameRecorderOptions options;
        options.baseline = baseModel;
        options.baselinePath = "base.bin";
        html::FlameRecorder rec(options);
        SyntheticFeed f(rec);
        feed(f, 3, 7);
        rec.finish({});
        auto page = rec.page();
        QVERIFY(page.ok());
        const json d = pageData(*page);
        QCOMPARE(d["views"].size(), 1u); // a comparison is of whole recordings
        const json& v = d["views"][0];
        // heavy: 7 of 16 samples in the baseline on this path.
        for (size_t i = 0; i < v["f"].size(); ++i)
            if (nameOf(d, v["f"][i]) == "heavy") QCOMPARE(v["b"][i].get<double>(), 43.75);
        JSON_EQ(d["diff"]["baseline"], "base.bin");
        QCOMPARE(d["diff"]["palette"].size(), 41u);
        JSON_EQ(d["diff"]["grew"][0]["name"], "light");
        JSON_EQ(d["diff"]["shrank"][0]["name"], "heavy");
        QCOMPARE(d["diff"]["shrank"][0]["delta"].get<double>(), 18.75 - 43.75);
        QVERIFY(d["diff"]["onlyCurrent"].empty());
    }

    void pageIsSafeAndOffline() {
        html::FlameRecorder rec(html::FlameRecorderOptions{});
        SyntheticFeed f(rec);
        const FrameId evil =
            f.frame("</script><script>alert(1)</script>", 1, "</script><!--<script>\xff\x01");
        f.add(1, 0, {evil}, {1000, 2000});
        rec.finish({});
        auto page = rec.page();
        QVERIFY(page.ok());
        QVERIFY(page->find("alert(1)</script>") == std::string::npos);
        QVERIFY(page->find("<!--<script>") == std::string::npos);
        QVERIFY(page->find("GILSCOPE_") == std::string::npos); // every marker filled
        QVERIFY(page->find("Content-Security-Policy\" content=\"default-src 'none'") !=
                std::string::npos);
        QVERIFY(page->find("http://") == std::string::npos &&
                page->find("https://") == std::string::npos);
        const json d = pageData(*page);
        JSON_EQ(d["strings"][d["funcs"]["file"][0].get<int>()],
                "</script><script>alert(1)</script>");
        JSON_EQ(d["strings"][d["funcs"]["name"][0].get<int>()],
                "</script><!--<script>\xef\xbf\xbd\x01");
    }

    void jsonText() {
        html::JsonText j;
        j.str("a\"b\\c\n<").raw(",").num(uint64_t{42}).raw(",").num(int64_t{-1}).raw(",");
        j.num(1.5000, 3).raw(",").num(-0.0001, 2).raw(",").num(2.0, 2);
        QCOMPARE(QString::fromStdString(j.text()),
                 QString("\"a\\\"b\\\\c\\u000a\\u003c\",42,-1,1.5,0,2"));
    }
};

QTEST_GUILESS_MAIN(TestFlamePage)
#include "test_flame_page.moc"
