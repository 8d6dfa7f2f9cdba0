// Ports of CPython's named Gecko collector tests (cpython-profiling.md §6) and the
// marker state machine, on synthetic samples.

#include "gecko_test_support.h"

#include "core/gecko/gecko_collector.h"
#include "core/sample/sample_label.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "core/util/temp_dir.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/shared_dir.h"

#include <QTest>
#include <atomic>
#include <set>
#include <thread>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;
namespace TS = gilscope::ThreadStatus;
using nlohmann::json;

namespace {

// (name, start, end) of thread 0's markers, with names resolved.
struct Marker {
    std::string name;
    double start, end;
    json data;
};
std::vector<Marker> markersOf(const json& profile, size_t thread = 0) {
    const auto& strings = profile["shared"]["stringArray"];
    const auto& m = profile["threads"][thread]["markers"];
    std::vector<Marker> out;
    for (size_t i = 0; i < m["length"].get<size_t>(); ++i)
        out.push_back({strings[m["name"][i].get<size_t>()].get<std::string>(),
                       m["startTime"][i].get<double>(), m["endTime"][i].get<double>(),
                       m["data"][i]});
    return out;
}

std::vector<json> opcodeMarkerData(const json& profile) {
    std::vector<json> out;
    for (const auto& d : profile["threads"][0]["markers"]["data"])
        if (d["type"] == "Opcode") out.push_back(d);
    return out;
}

#define VERIFY_EXPORTED(e)                                                                         \
    do {                                                                                           \
        QVERIFY2((e).status.ok(), (e).status.ok() ? "" : (e).status.error().message.c_str());      \
        QVERIFY2((e).checkOk, (e).checkOutput.c_str());                                            \
    } while (0)

} // namespace

class TestGeckoCollector : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // A spill directory left by a gilscope that no longer runs (pid beyond pid_max).
        staleDir_ =
            systemTempDir() / (std::string(temp_prefix::kGeckoSpill) + "-2147483646-stale1");
        fs::create_directories(staleDir_);
    }

    // Item 12: the window asks exported() (may it close? export again?) while the export
    // worker runs. A plain bool there is a data race: the TSan build (scripts/test.sh)
    // reports it and fails this test. First of the suite: TSan stops seeing the main
    // thread's accesses once a test has spawned a process (Qt's vfork-style QProcess).
    void exportedReadWhileExporting() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("file.py", 10, "func");
        for (uint64_t t = 1; t <= 2000; ++t)
            feed.add(1 + t % 4, 0, {f}, {t * 1000});
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir);
        std::atomic<bool> done{false};
        Status status = makeError(ErrorKind::Internal, "not run");
        std::thread worker([&] {
            status = collector.exportTo(dir->path() / "out.json");
            done = true;
        });
        uint64_t polls = 0;
        while (!done) // as the GUI thread does, while it waits for the worker
            polls += collector.exported() ? 1 : 0;
        worker.join();
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
        QVERIFY(collector.exported());
        qInfo("exported() seen true %llu times during the export", (unsigned long long)polls);
    }

    void staleSpillDirectoriesAreRemovedOnStart() {
        GeckoCollector collector;
        QVERIFY(!fs::exists(staleDir_));
    }

    void geckoCollectorExport() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f1 = feed.frame("file.py", 10, "func1");
        const FrameId f2 = feed.frame("file.py", 20, "func2");
        const FrameId other = feed.frame("other.py", 5, "other_func");
        feed.add(1, 0, {f1, f2}, {1000});
        feed.add(1, 0, {f1, f2}, {2000});
        feed.add(1, 0, {other}, {3000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const json& p = e.profile;
        QVERIFY(p.contains("meta") && p.contains("threads") && p.contains("shared"));
        QVERIFY(p["meta"].contains("categories") && p["meta"].contains("interval"));
        std::set<std::string> strings(p["shared"]["stringArray"].begin(),
                                      p["shared"]["stringArray"].end());
        for (const char* s : {"func1", "func2", "other_func"})
            QVERIFY(strings.count(s));
        const json& samples = p["threads"][0]["samples"];
        QCOMPARE(samples["length"].get<int>(), 3);
        for (const char* col : {"stack", "time", "eventDelay"})
            QCOMPARE(samples[col].size(), size_t(3));
    }

    void exportAfterSpillFlushWithOneByteBuffer() {
        GeckoOptions opt;
        opt.spillBufferBytes = 1;
        GeckoCollector collector(opt);
        SyntheticFeed feed(collector);
        feed.add(1, TS::HasGil, {feed.frame("file.py", 10, "func1")}, {1000, 2000, 3000});
        // Every append went straight to disk, into the one shared spill file.
        const fs::path spill = collector.spillDirectory();
        QVERIFY(!spill.empty());
        QCOMPARE(listDir(spill).size(), size_t(1));
        QCOMPARE(fs::file_size(spill / "spill.bin"),
                 uintmax_t(3 * sizeof(int32_t) + 3 * sizeof(double)));
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const json& samples = e.profile["threads"][0]["samples"];
        QCOMPARE(samples["length"].get<int>(), 3);
        for (const char* col : {"stack", "time", "eventDelay"})
            QCOMPARE(samples[col].size(), size_t(3));
        QVERIFY(samples["time"] == json::parse("[0.0,1.0,2.0]"));
        QVERIFY(!fs::exists(spill)); // removed after export
    }

    void rejectsCollectAfterExport() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("file.py", 10, "func");
        feed.add(1, 0, {f}, {1000});
        Exported first = exportAndCheck(collector);
        VERIFY_EXPORTED(first);
        QVERIFY(!collector.failed());
        feed.add(1, 0, {f}, {2000});
        QVERIFY(collector.failed());
        QVERIFY(collector.sinkError().message.find("after export") != std::string::npos);
        auto dir = TempDir::create("gilscope-test");
        Status again = collector.exportTo(dir->path() / "again.json");
        QVERIFY(!again.ok());
        QVERIFY(again.error().message.find("after export") != std::string::npos);
        QVERIFY(!fs::exists(dir->path() / "again.json"));
    }

    void spillDirectoryRemovedOnDestructionWithoutExport() {
        fs::path spill;
        {
            GeckoCollector collector;
            SyntheticFeed feed(collector);
            feed.add(7, 0, {feed.frame("a.py", 1, "a")}, {10});
            spill = collector.spillDirectory();
            QVERIFY(fs::is_directory(spill));
            QCOMPARE(spill.filename().string().rfind(std::string(temp_prefix::kGeckoSpill) + "-" +
                                                         std::to_string(::getpid()) + "-",
                                                     0),
                     size_t(0));
        }
        QVERIFY(!fs::exists(spill));
    }

    void mainThreadFlagComesFromTheCreatingSample() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        feed.add(1, TS::MainThread, {feed.frame("main.py", 10, "main")}, {1000});
        feed.add(2, 0, {feed.frame("worker.py", 20, "worker")}, {1000});
        feed.add(2, TS::MainThread, {feed.frame("worker.py", 20, "worker")},
                 {2000}); // latched: stays false
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        QCOMPARE(e.profile["threads"][0]["tid"].get<int>(), 1);
        QCOMPARE(e.profile["threads"][0]["isMainThread"].get<bool>(), true);
        QCOMPARE(e.profile["threads"][1]["isMainThread"].get<bool>(), false);
    }

    void filtersInternalFrames() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        feed.add(1, 0,
                 {feed.frame("/path/to/_sync_coordinator.py", 5, "_run"),
                  feed.frame("app.py", 3, "work"), feed.frame("<frozen runpy>", 88, "_run_code")},
                 {1000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        for (const auto& s : e.profile["shared"]["stringArray"])
            QVERIFY(s.get<std::string>().find("_sync_coordinator") == std::string::npos);
        QVERIFY(std::find(e.profile["shared"]["stringArray"].begin(),
                          e.profile["shared"]["stringArray"].end(),
                          "<frozen runpy>") != e.profile["shared"]["stringArray"].end());
        QCOMPARE(e.profile["threads"][0]["funcTable"]["length"].get<int>(), 2);
    }

    void frameFormatAndColumnLengths() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        feed.add(1, TS::HasGil | TS::OnCpu,
                 {feed.frame("a.py", 1, "f1"), feed.frame("b.py", 2, "f2"),
                  feed.frame("<native>", 0, "f3")},
                 {1000, 2000});
        feed.add(1, TS::OnCpu, {feed.frame("a.py", 4, "f1")}, {3000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const json& th = e.profile["threads"][0];
        QCOMPARE(th["funcTable"]["length"].get<int>(), 3);
        QCOMPARE(th["frameTable"]["length"].get<int>(), 4); // f1 at two lines
        QVERIFY(th["funcTable"]["isJS"] == json::parse("[false,true,true]"));
        for (const char* table : {"samples", "stackTable", "frameTable", "funcTable",
                                  "resourceTable", "nativeSymbols", "markers"}) {
            std::string why;
            QVERIFY2(columnsMatchLength(th[table], &why),
                     (std::string(table) + ": " + why).c_str());
        }
    }

    // --native-stacks: a C function is a Native frame whose resource is its library, listed
    // in the profile's libs; the Python frames around it stay Python.
    void nativeFramesAreNativeWithTheirLibrary() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const std::string libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
        feed.add(1, TS::OnCpu,
                 {feed.frame("app.py", 4, "py_cmp"), feed.nativeFrame(libc, "msort_with_tmp"),
                  feed.nativeFrame(libc, "qsort_r"), feed.nativeFrame("/opt/libdemo.so", "demo"),
                  feed.frame("app.py", 9, "sort_forever")},
                 {1000, 2000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const json& libs = e.profile["libs"];
        QCOMPARE(libs.size(), size_t(2)); // first seen from the root: libdemo, then libc
        QCOMPARE(libs[0]["debugName"].get<std::string>(), std::string("libdemo.so"));
        QCOMPARE(libs[1]["path"].get<std::string>(), libc);
        QCOMPARE(libs[1]["name"].get<std::string>(), std::string("libc.so.6"));
        const json& th = e.profile["threads"][0];
        const auto& strings = e.profile["shared"]["stringArray"];
        const json& funcs = th["funcTable"];
        const json& resources = th["resourceTable"];
        int natives = 0;
        for (size_t f = 0; f < funcs["length"].get<size_t>(); ++f) {
            const std::string name = strings[funcs["name"][f].get<size_t>()];
            const bool native = name != "py_cmp" && name != "sort_forever";
            QCOMPARE(funcs["isJS"][f].get<bool>(), !native);
            const size_t res = funcs["resource"][f].get<size_t>();
            if (!native) {
                QVERIFY(resources["lib"][res].is_null());
                continue;
            }
            ++natives;
            QVERIFY(funcs["fileName"][f].is_null());
            const std::string lib = name == "demo" ? "libdemo.so" : "libc.so.6";
            QCOMPARE(libs[resources["lib"][res].get<size_t>()]["name"].get<std::string>(), lib);
            QCOMPARE(strings[resources["name"][res].get<size_t>()].get<std::string>(), lib);
        }
        QCOMPARE(natives, 3);
        const json& frames = th["frameTable"];
        for (size_t f = 0; f < frames["length"].get<size_t>(); ++f) {
            const bool js = funcs["isJS"][frames["func"][f].get<size_t>()].get<bool>();
            QCOMPARE(frames["category"][f].get<int>(), js ? 1 : 2); // 2: "Native"
        }
        QCOMPARE(e.profile["meta"]["categories"][2]["name"].get<std::string>(),
                 std::string("Native"));
    }

    // A wait leaf (--wait-reasons) puts its samples in a wait category, which the
    // profile then lists; without one the categories stay CPython's nine.
    void waitLeavesHaveCategories() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId work = feed.frame("app.py", 3, "work");
        const FrameId lock = feed.frame("~", 0, "<lock wait>");
        const FrameId recv = feed.frame("~", 0, "<read TCP 10.0.0.5:5432>");
        feed.add(1, withWaitReason(0, WaitReason::Lock), {lock, work}, {1000});
        feed.add(1, withWaitReason(0, WaitReason::IoRead), {recv, work}, {2000});
        feed.add(1, TS::HasGil | TS::OnCpu, {work}, {3000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const json& cats = e.profile["meta"]["categories"];
        QCOMPARE(cats.size(), size_t(13));
        QCOMPARE(cats[9]["name"].get<std::string>(), std::string("Lock"));
        QCOMPARE(cats[10]["name"].get<std::string>(), std::string("Network/I/O"));
        const json& th = e.profile["threads"][0];
        const json& stacks = th["stackTable"];
        const json& samples = th["samples"];
        const json& strings = e.profile["shared"]["stringArray"];
        std::set<int> seen;
        for (size_t i = 0; i < samples["length"].get<size_t>(); ++i) {
            const size_t stack = samples["stack"][i].get<size_t>();
            const size_t frame = stacks["frame"][stack].get<size_t>();
            const size_t func = th["frameTable"]["func"][frame].get<size_t>();
            const std::string name = strings[th["funcTable"]["name"][func].get<size_t>()];
            const int category = stacks["category"][stack].get<int>();
            seen.insert(category);
            QCOMPARE(category, name == "<lock wait>" ? 9 : name.starts_with("<read") ? 10 : 1);
        }
        QCOMPARE(seen.size(), size_t(3));
        // Each wait is an interval marker with its reason, in its category.
        const json& markers = th["markers"];
        std::set<std::string> waits;
        for (size_t i = 0; i < markers["length"].get<size_t>(); ++i) {
            const std::string name = strings[markers["name"][i].get<size_t>()];
            if (name == "Waiting on a lock") QCOMPARE(markers["category"][i].get<int>(), 9);
            if (name == "Waiting on I/O") QCOMPARE(markers["category"][i].get<int>(), 10);
            if (name.starts_with("Waiting on")) {
                waits.insert(name);
                QCOMPARE(markers["data"][i]["type"].get<std::string>(),
                         name == "Waiting on a lock" ? std::string("WaitingonLock")
                                                     : std::string("WaitingonIO"));
            }
        }
        QCOMPARE(waits.size(), size_t(2));

        GeckoCollector plain;
        SyntheticFeed plainFeed(plain);
        plainFeed.add(1, TS::OnCpu, {plainFeed.frame("app.py", 3, "work")}, {1000});
        Exported p = exportAndCheck(plain);
        VERIFY_EXPORTED(p);
        QCOMPARE(p.profile["meta"]["categories"].size(), size_t(9));
    }

    void markerStateMachine() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("test.py", 10, "func");
        feed.add(1, TS::HasGil | TS::OnCpu, {f}, {1000});
        feed.add(1, TS::GilRequested, {f}, {2000});
        feed.add(1, TS::HasGil | TS::OnCpu, {f}, {3000});
        feed.add(1, TS::OnCpu, {f}, {4000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        std::set<std::string> names;
        for (const Marker& m : markersOf(e.profile)) {
            names.insert(m.name);
            QVERIFY(m.start <= m.end);
            QCOMPARE(m.data["type"].get<std::string>(),
                     QString::fromStdString(m.name).remove(' ').toStdString());
            QCOMPARE(m.data["tid"].get<int>(), 1);
        }
        for (const char* n : {"Has GIL", "No GIL", "On CPU", "Waiting for GIL"})
            QVERIFY2(names.count(n), n);
        const json& mk = e.profile["threads"][0]["markers"];
        for (const auto& phase : mk["phase"])
            QCOMPARE(phase.get<int>(), 1);
        for (const auto& cat : mk["category"])
            QVERIFY(cat.get<int>() >= 0);

        // Exact sequence, emission order (times in ms from the first timestamp).
        std::vector<std::tuple<std::string, double, double>> got;
        for (const Marker& m : markersOf(e.profile))
            got.emplace_back(m.name, m.start, m.end);
        const std::vector<std::tuple<std::string, double, double>> want = {
            {"Has GIL", 0, 1},
            {"On CPU", 0, 1},
            {"Python Code", 0, 1}, // t=1: requested, no
                                   // GIL/CPU
            {"No GIL", 1, 2},
            {"Off CPU", 1, 2},
            {"Waiting for GIL", 1, 2},
            {"Has GIL", 2, 3},
            {"Python Code", 2, 3}, // t=3: CPU only
            {"No GIL", 3, 3},
            {"On CPU", 2, 3},
            {"Native Code", 3, 3}, // closed at the end
            {"No Exception", 0, 3},
        };
        QCOMPARE(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            QVERIFY2(got[i] == want[i], std::get<0>(want[i]).c_str());
    }

    // --label-from: a marker per run of samples with one value of a label (its root
    // pseudo-frame), named by the key, the value in its data, on the sample's thread.
    void labelRunsAreIntervalMarkers() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("test.py", 10, "func");
        const FrameId fast = feed.frame("~", 0, labelFrameName("route", "/fast"));
        const FrameId slow = feed.frame("~", 0, labelFrameName("route", "/slow"));
        const FrameId tenant = feed.frame("~", 0, labelFrameName("tenant", "acme"));
        feed.add(1, TS::HasGil, {f, fast, tenant}, {1000});
        feed.add(1, TS::HasGil, {f, fast, tenant}, {2000});
        feed.add(1, TS::HasGil, {f, slow, tenant}, {3000}); // route changes, tenant runs on
        feed.add(1, TS::HasGil, {f}, {5000});               // no label at all
        feed.add(1, TS::HasGil, {f, slow}, {6000});
        feed.add(1, TS::HasGil, {f, slow}, {8000}); // still open at the end
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        std::vector<std::tuple<std::string, std::string, double, double>> got;
        for (const Marker& m : markersOf(e.profile))
            if (m.data["type"] == "Label")
                got.emplace_back(m.name, m.data["value"].get<std::string>(), m.start, m.end);
        const std::vector<std::tuple<std::string, std::string, double, double>> want = {
            {"route", "/fast", 0, 2},
            {"tenant", "acme", 0, 4}, // in the order they end
            {"route", "/slow", 2, 4},
            {"route", "/slow", 5, 7}};
        QCOMPARE(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            QVERIFY2(got[i] == want[i], std::get<1>(want[i]).c_str());
        // The marker chart knows how to show them.
        bool described = false;
        for (const auto& schema : e.profile["meta"]["markerSchema"])
            described |= schema["name"] == "Label";
        QVERIFY(described);
    }

    void stateMachineRunsOncePerBatchAtItsFirstTimestamp() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("test.py", 10, "func");
        feed.add(1, TS::HasGil, {f}, {0, 1000, 2000});
        feed.add(1, 0, {f}, {5000, 6000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const auto m = markersOf(e.profile);
        QCOMPARE(m[0].name, std::string("Has GIL"));
        QCOMPARE(m[0].start, 0.0);
        QCOMPARE(m[0].end, 5.0); // the second batch's first timestamp
        QCOMPARE(e.profile["threads"][0]["samples"]["length"].get<int>(), 5);
        QCOMPARE(e.profile["meta"]["interval"].get<double>(), 6.0 / 5);
    }

    void gcAndExceptionMarkers() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("app.py", 3, "work");
        const FrameId gc = feed.frame("~", -1, "<GC>");
        feed.add(1, TS::HasGil, {f}, {0});
        feed.add(1, TS::HasGil | TS::HasException, {gc, f}, {1000});
        feed.add(1, TS::HasGil, {f}, {3000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        bool gcSeen = false, excSeen = false;
        for (const Marker& m : markersOf(e.profile)) {
            if (m.name == "GC Collecting") {
                gcSeen = true;
                QCOMPARE(m.start, 1.0);
                QCOMPARE(m.end, 3.0);
                QCOMPARE(m.data["type"].get<std::string>(), std::string("GCCollecting"));
            }
            if (m.name == "Has Exception") {
                excSeen = true;
                QCOMPARE(m.start, 1.0);
                QCOMPARE(m.end, 3.0);
            }
        }
        QVERIFY(gcSeen && excSeen);
    }

    void opcodesDisabledByDefault() {
        QCOMPARE(GeckoOptions{}.opcodes, false);
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        // No version in RecordingInfo: CPython 3.15's numbering (3.15.2's table).
        feed.add(1, TS::HasGil, {feed.frame("test.py", 10, "func", 88)}, {1000});
        feed.add(1, TS::HasGil, {feed.frame("test.py", 10, "func", 96)}, {2000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        QVERIFY(opcodeMarkerData(e.profile).empty());
        QVERIFY(e.profile["meta"]["markerSchema"] == json::array());
    }

    void opcodeStateChangeEmitsMarker() {
        GeckoOptions opt;
        opt.opcodes = true;
        GeckoCollector collector(opt);
        SyntheticFeed feed(collector);
        // No version in RecordingInfo: CPython 3.15's numbering (3.15.2's table).
        feed.add(1, TS::HasGil, {feed.frame("test.py", 10, "func", 88)}, {1000});
        feed.add(1, TS::HasGil, {feed.frame("test.py", 10, "func", 96)}, {2000});
        feed.add(1, TS::HasGil, {feed.frame("test.py", 10, "func", 186)}, {4000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        std::string why;
        QVERIFY2(columnsMatchLength(e.profile["threads"][0]["markers"], &why), why.c_str());
        const auto ops = opcodeMarkerData(e.profile);
        QCOMPARE(ops.size(), size_t(3)); // two changes + the one open at the end
        QCOMPARE(ops[0]["opcode"].get<int>(), 88);
        QCOMPARE(ops[0]["line"].get<int>(), 10);
        QCOMPARE(ops[0]["function"].get<std::string>(), std::string("func"));
        QCOMPARE(ops[0]["opname"].get<std::string>(), std::string("LOAD_FAST_LOAD_FAST"));
        QCOMPARE(ops[0]["duration"].get<double>(), 1.0);
        QVERIFY(ops[0]["column"].is_null());
        QCOMPARE(ops[1]["opname"].get<std::string>(), std::string("MAKE_CELL"));
        QCOMPARE(ops[2]["opname"].get<std::string>(),
                 std::string("LOAD_ATTR_INSTANCE_VALUE (LOAD_ATTR)"));
        QCOMPARE(ops[2]["base_opname"].get<std::string>(), std::string("LOAD_ATTR"));
        QCOMPARE(ops[2]["is_specialized"].get<bool>(), true);
        const json& schema = e.profile["meta"]["markerSchema"];
        QCOMPARE(schema.size(), size_t(1));
        QCOMPARE(schema[0]["name"].get<std::string>(), std::string("Opcode"));
        QCOMPARE(schema[0]["fields"].size(), size_t(7));
        for (const Marker& m : markersOf(e.profile))
            if (m.data["type"] == "Opcode") QCOMPARE(m.name, m.data["opname"].get<std::string>());
    }

    void opcodeNoneEmitsNoMarker() {
        GeckoOptions opt;
        opt.opcodes = true;
        GeckoCollector collector(opt);
        SyntheticFeed feed(collector);
        feed.add(1, TS::HasGil, {feed.frame("test.py", 10, "func")}, {1000});
        feed.add(1, TS::HasGil, {feed.frame("test.py", 11, "func")}, {2000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        QVERIFY(opcodeMarkerData(e.profile).empty());
    }

    void timesNeverGoBackWithinAThread() {
        // One thread id in two interpreters becomes one Gecko thread; its records
        // interleave out of time order, which CPython would write as-is.
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("a.py", 1, "f");
        feed.add(5, TS::HasGil, {f}, {5000, 6000});
        feed.add(5, 0, {f}, {1000});
        feed.add(6, TS::HasGil, {f}, {500}); // the last call is the earliest: markers end here
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e); // check-gecko rejects backward times and inverted intervals
        QVERIFY(e.profile["threads"][0]["samples"]["time"] == json::parse("[0.0,1.0,1.0]"));
    }

    void randomStacksRoundTripThroughTheTables() {
        // The incremental stack walk (shared root frames reused) must give exactly the
        // stacks that were fed in, minus the filtered frames.
        GeckoOptions opt;
        opt.spillBufferBytes = 64;
        GeckoCollector collector(opt);
        SyntheticFeed feed(collector);
        std::vector<FrameId> pool;
        std::vector<std::string> label; // "func:line" of each pool frame, "" if filtered
        for (int i = 0; i < 12; ++i) {
            pool.push_back(
                feed.frame("mod" + std::to_string(i % 5) + ".py", 10 + i, "f" + std::to_string(i)));
            label.push_back("f" + std::to_string(i) + ":" + std::to_string(10 + i));
        }
        pool.push_back(feed.frame("/x/_sync_coordinator.py", 1, "boot"));
        label.push_back("");
        std::vector<std::vector<std::vector<std::string>>> expected(
            3); // thread -> samples -> root-first labels
        uint64_t rng = 7;
        std::vector<std::vector<FrameId>> current(3);
        for (int i = 0; i < 6000; ++i) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const int t = static_cast<int>((rng >> 33) % 3);
            auto& st = current[t];
            const int op = static_cast<int>((rng >> 40) % 4);
            if (op == 0 && !st.empty())
                st.erase(st.begin()); // pop leaf
            else if (op == 1 && st.size() < 14)
                st.insert(st.begin(), pool[(rng >> 45) % pool.size()]); // push
            else if (op == 2 && !st.empty())
                st[(rng >> 50) % st.size()] = pool[(rng >> 20) % pool.size()];
            feed.add(100 + t, 0, st, {static_cast<uint64_t>(1000 + i)});
            std::vector<std::string> labels;
            for (auto it = st.rbegin(); it != st.rend(); ++it)
                if (const size_t at = it->index() - pool.front().index(); !label[at].empty())
                    labels.push_back(label[at]);
            if (!labels.empty()) expected[t].push_back(labels);
        }
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        const json& strings = e.profile["shared"]["stringArray"];
        for (const json& th : e.profile["threads"]) {
            const int t = th["tid"].get<int>() - 100;
            const json& samples = th["samples"];
            QCOMPARE(samples["length"].get<size_t>(), expected[t].size());
            for (size_t i = 0; i < expected[t].size(); ++i) {
                std::vector<std::string> got;
                for (json s = samples["stack"][i]; !s.is_null();
                     s = th["stackTable"]["prefix"][s.get<size_t>()]) {
                    const size_t frame = th["stackTable"]["frame"][s.get<size_t>()].get<size_t>();
                    const size_t func = th["frameTable"]["func"][frame].get<size_t>();
                    got.push_back(
                        strings[th["funcTable"]["name"][func].get<size_t>()].get<std::string>() +
                        ":" + std::to_string(th["frameTable"]["line"][frame].get<int>()));
                }
                std::reverse(got.begin(), got.end());
                QVERIFY2(got == expected[t][i],
                         ("thread " + std::to_string(t) + " sample " + std::to_string(i)).c_str());
            }
        }
    }

    // The spill is one shared file however many threads there are. Old: 8 files per
    // thread (40,000 one-sample threads made 320,000 files and 1.3 GB).
    void manyThreadsShareOneSpillFile() {
        GeckoOptions opt;
        opt.spillBufferBytes = 16; // chunks go to disk often
        GeckoCollector* self = nullptr;
        size_t spillFiles = 0;
        opt.beforeWrite = [&](uint64_t written) -> Status {
            if (written == 0 && self) spillFiles = listDir(self->spillDirectory()).size();
            return {};
        };
        GeckoCollector collector(opt);
        self = &collector;
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("worker.py", 3, "work");
        constexpr int kThreads = 3000;
        for (int t = 0; t < kThreads; ++t)
            for (uint64_t i = 0; i < 5; ++i)
                feed.add(10 + t, i % 2 ? TS::HasGil : 0, {f}, {1000 + i * 1000});
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        QCOMPARE(spillFiles, size_t(1));
        QCOMPARE(e.profile["threads"].size(), size_t(kThreads));
        for (const auto& th : e.profile["threads"])
            QCOMPARE(th["samples"]["length"].get<int>(), 5);
    }

    // A spill disk that fails (here: the file size limit) makes the collector report
    // failure at once, and every sample still exports: what could not go to disk stayed
    // in memory.
    void spillFailureIsReportedAndLosesNothing() {
        GeckoOptions opt;
        opt.spillBufferBytes = 512;
        GeckoCollector collector(opt);
        SyntheticFeed feed(collector);
        const FrameId f = feed.frame("spin.py", 1, "spin");
        uint64_t fed = 0;
        {
            FileSizeLimit limit(4096);
            QVERIFY(limit.active());
            for (; fed < 20000 && !collector.failed(); ++fed)
                feed.add(1, fed % 7 ? TS::HasGil : 0, {f}, {1000 + fed * 1000});
            QVERIFY(collector.failed());
            for (int extra = 0; extra < 100; ++extra, ++fed) // a sampler stops after its tick
                feed.add(1, TS::HasGil, {f}, {1000 + fed * 1000});
        }
        QVERIFY2(collector.sinkError().message.find("cannot write the profile spill file") !=
                     std::string::npos,
                 collector.sinkError().message.c_str());
        QCOMPARE(collector.sinkError().kind, ErrorKind::DiskFull);
        Exported e = exportAndCheck(collector);
        VERIFY_EXPORTED(e);
        QCOMPARE(e.profile["threads"][0]["samples"]["length"].get<uint64_t>(), fed);
    }

    void noSamplesIsAClearError() {
        GeckoCollector collector;
        SyntheticFeed feed(collector);
        auto dir = TempDir::create("gilscope-test");
        Status s = collector.exportTo(dir->path() / "p.json");
        QVERIFY(!s.ok());
        QVERIFY(s.error().message.find("no samples") != std::string::npos);
        QVERIFY(listDir(dir->path()).empty());
    }

private:
    fs::path staleDir_;
};

QTEST_GUILESS_MAIN(TestGeckoCollector)
#include "test_gecko_collector.moc"
