// The one colour rule of frames (core/analysis/module_color), which the window and the
// HTML pages share: modules from paths, HSV as Qt converts it, and colours that stay the
// same from build to build.
#include "core/analysis/module_color.h"

#include <QTest>
#include <algorithm>

using namespace gilscope;

class TestModuleColor : public QObject {
    Q_OBJECT
private slots:
    void modules() {
        QCOMPARE(moduleOf("/venv/lib/python3.12/site-packages/requests/api.py"), "requests");
        QCOMPARE(moduleOf("/usr/lib/python3/dist-packages/yaml/__init__.py"), "yaml");
        QCOMPARE(moduleOf("/usr/lib/python3.12/json/decoder.py"), "json");
        QCOMPARE(moduleOf("/usr/lib/python3.13t/json/decoder.py"), "json");
        QCOMPARE(moduleOf("/usr/lib/python3.12/threading.py"), "threading");
        QCOMPARE(moduleOf("/home/me/app/server.py"), "server");
        QCOMPARE(moduleOf("<frozen runpy>"), "<frozen runpy>");
        QCOMPARE(moduleOf("~"), "~");
        QCOMPARE(moduleOf(""), "");
        QCOMPARE(moduleOf("/srv/dir/"), "/srv/dir/");
        QCOMPARE(moduleOf("/opt/python3.x/lib.py"), "lib"); // not a version: no stdlib dir
    }

    void hsvAsQtConverts() {
        // QColor::fromHsv(h, s, v).rgb() for these, taken from Qt 6.4.
        QCOMPARE(rgbFromHsv(0, 255, 255), (Rgb{255, 0, 0}));
        QCOMPARE(rgbFromHsv(120, 255, 255), (Rgb{0, 255, 0}));
        QCOMPARE(rgbFromHsv(240, 255, 128), (Rgb{0, 0, 128}));
        QCOMPARE(rgbFromHsv(60, 0, 200), (Rgb{200, 200, 200}));
        QCOMPARE(rgbFromHsv(300, 110, 235), (Rgb{235, 134, 235}));
    }

    void stableColours() {
        // FNV-1a of the module name picks the hue: the same in every build and run.
        QCOMPARE(cssHex(colorOfModule("json")),
                 cssHex(moduleColor("/usr/lib/python3.12/json/x.py")));
        QCOMPARE(moduleColor("/a/app.py"), moduleColor("/b/app.py"));
        QVERIFY(moduleColor("/a/app.py") != moduleColor("/a/json.py"));
        QCOMPARE(QString::fromStdString(cssHex(colorOfModule("json"))), QString("#eb86a9"));
        // Change colours: grey at no change, red when grown, blue when shrunk, saturating.
        QCOMPARE(changeColor(0, 10), rgbFromHsv(0, 20, 225));
        QVERIFY(changeColor(5, 10).r > changeColor(5, 10).b);
        QVERIFY(changeColor(-5, 10).b > changeColor(-5, 10).r);
        QCOMPARE(changeColor(50, 10), changeColor(10, 10));
    }

    // --native-stacks: C functions are muted blue-greys by library, never a Python module's
    // pastel, so a flame graph tells C from Python at a glance.
    void nativeFramesHaveTheirOwnColours() {
        const std::string libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
        QCOMPARE(frameColor(libc, true), colorOfLibrary("libc.so.6"));
        QCOMPARE(frameColor("/app/x.py", false), moduleColor("/app/x.py"));
        QVERIFY(frameColor(libc, true) != moduleColor(libc));
        auto saturation = [](Rgb c) {
            const int hi = std::max({c.r, c.g, c.b}), lo = std::min({c.r, c.g, c.b});
            return hi == 0 ? 0 : 255 * (hi - lo) / hi;
        };
        for (const char* lib : {"libc.so.6", "libblas.so.3", "libdemo.so", "python3.11"}) {
            const Rgb n = colorOfLibrary(lib);
            QVERIFY2(saturation(n) < 60, lib);      // muted ...
            QVERIFY2(n.b > n.r && n.b >= n.g, lib); // ... and blue
        }
        for (const char* module : {"json", "app", "threading", "requests", "numpy"})
            QVERIFY2(saturation(colorOfModule(module)) > 100, module);
    }
};

QTEST_GUILESS_MAIN(TestModuleColor)
#include "test_module_color.moc"
