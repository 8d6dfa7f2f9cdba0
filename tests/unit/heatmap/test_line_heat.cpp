// Per-line heat as CPython's heatmap counts it: a line once per sample whichever function
// is on it, own on the leaf only, artificial files left out, files by samples; the calls
// between lines; and the page text escapes whatever a name or a source holds.
#include "core/analysis/line_heat.h"
#include "core/analysis/profile_model.h"
#include "core/heatmap/heatmap_html.h"
#include "core/heatmap/heatmap_writer.h"
#include "core/html/html_escape.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

using namespace gilscope;
using gilscope::test::SyntheticFeed;

class TestLineHeat : public QObject {
    Q_OBJECT
private slots:
    void countsLikeCPython() {
        ProfileModel model;
        SyntheticFeed feed(model);
        const FrameId main = feed.frame("m.py", 3, "<module>");
        const FrameId comp = feed.frame("m.py", 3, "<listcomp>"); // same line as its caller
        const FrameId work = feed.frame("w.py", 7, "work");
        const FrameId gc = feed.frame("~", 0, "<GC>");
        feed.add(1, 0, {work, comp, main}, {1000, 2000, 3000});
        feed.add(1, 0, {gc, main}, {4000});
        model.finish({});
        auto s = model.query({});
        QVERIFY(s);
        const auto files = lineHeatByFile(**s);
        QCOMPARE(files.size(), size_t(2));
        QCOMPARE(files[0].file, std::string("m.py"));
        QCOMPARE(files[0].samples, uint64_t(4));
        QCOMPARE(files[0].lines.size(), size_t(1));
        QCOMPARE(files[0].lines[0].total, uint64_t(4)); // once per sample, not twice
        QCOMPARE(files[0].lines[0].own, uint64_t(0));   // the <GC> leaf is no line
        QCOMPARE(files[1].lines[0].own, uint64_t(3));
        QCOMPARE(fileLineHeat(**s, "w.py")[0].line, 7);
        int intoWork = 0;
        for (const LineCall& c : lineCalls(**s))
            if ((*s)->functions[c.calleeFunc].name == "work") {
                ++intoWork;
                QCOMPARE((*s)->functions[c.callerFunc].name, std::string("<listcomp>"));
                QCOMPARE(c.callerLine, 3);
                QCOMPARE(c.samples, uint64_t(3));
            }
        QCOMPARE(intoWork, 1);
    }

    void escapes() {
        QCOMPARE(html::htmlEscape("<a href='x'>&\"</a>"),
                 std::string("&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"));
        QCOMPARE(html::htmlEscape("\xff"), std::string("\xef\xbf\xbd"));
        QVERIFY(heatmap::isHeatmapEntry("index.html"));
        QVERIFY(heatmap::isHeatmapEntry("file_0012.html"));
        QVERIFY(!heatmap::isHeatmapEntry("file_x.html"));
        QVERIFY(!heatmap::isHeatmapEntry("notes.txt"));
    }

    // A line number far past the source (a hostile .bin) is one more row, not a billion.
    void farLineIsOneRow() {
        FileHeat heat;
        heat.file = "/x.py";
        heat.lines = {{2, 1, 1, {}}, {2000000000, 3, 3, {}}};
        heatmap::FilePage page;
        page.heat = &heat;
        page.source.ok = true;
        page.source.bytes = "a = 1\nb = '</td>'\n";
        const std::string html = heatmap::renderFilePage({}, page);
        QVERIFY(html.size() < 20000);
        QVERIFY(html.find("id=\"line-2000000000\" data-own=\"3\"") != std::string::npos);
        QVERIFY(html.find("b = &#39;&lt;/td&gt;&#39;") != std::string::npos);
        page.source = {};
        page.source.why = "source not shown: /x.py is gone";
        const std::string unread = heatmap::renderFilePage({}, page);
        QVERIFY(unread.find("Source not shown: /x.py is gone.") != std::string::npos);
        QVERIFY(unread.find("id=\"line-1\"") == std::string::npos);
        QVERIFY(unread.find("id=\"line-2\" data-own") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestLineHeat)
#include "test_line_heat.moc"
