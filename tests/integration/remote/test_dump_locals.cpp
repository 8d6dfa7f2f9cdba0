// `gilscope dump --locals` on real interpreters, every build present (3.8-3.15, 3.13t):
// each supported kind of value with a known value, arguments told from locals, a closure's
// cell followed; and a two-lock deadlock whose threads show their own variables.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gilscope::test;

namespace {

struct Expected {
    const char* name;
    const char* kind;
    const char* type;
    QString value;
    qint64 length = -1;
};

QJsonObject frameNamed(const QJsonArray& threads, const QString& function) {
    for (const QJsonValue& t : threads)
        for (const QJsonValue& f : t["frames"].toArray())
            if (f["function"].toString() == function) return f.toObject();
    return {};
}

} // namespace

class TestDumpLocals : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        const auto all = findEveryBuild();
        printTestedInterpreters(all);
        GILSCOPE_REQUIRE_INTERPRETERS(all);
    }

    void everyKindOfValue_data() { addInterpreterRows(findEveryBuild()); }
    void everyKindOfValue() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "locals_values.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject info = target.readyInfo();
        const RunResult r =
            runGilscope({"dump", "--locals", "--json", QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject hold =
            frameNamed(QJsonDocument::fromJson(r.outBytes)["threads"].toArray(), "hold");
        QVERIFY2(!hold.isEmpty(), qPrintable(QString::fromUtf8(r.outBytes)));
        QCOMPARE(hold["line"].toInt(), info["line"].toInt());
        QMap<QString, QJsonObject> vars;
        QStringList order;
        for (const QJsonValue& v : hold["locals"].toArray()) {
            vars[v["name"].toString()] = v.toObject();
            order << v["name"].toString();
        }
        const QString ellipsis = QString::fromUtf8("\xE2\x80\xA6");
        const QList<Expected> expected = {
            {"pos", "argument", "int", "1"},
            {"kw", "argument", "str", "'k'", 1},
            {"args", "argument", "tuple", "(2, 3)", 2},
            {"kwargs", "argument", "dict", "{'extra': 1}", 1},
            {"none", "local", "NoneType", "None"},
            {"yes", "local", "bool", "True"},
            {"no", "local", "bool", "False"},
            {"small", "local", "int", "42"},
            {"negative", "local", "int", "-7"},
            {"big", "local", "int", "1267650600228229401496703205376"},
            {"huge_negative", "local", "int", "-10000000000000000000000000000000000000000"},
            {"zero", "local", "int", "0"},
            {"pi", "local", "float", "3.25"},
            {"text", "local", "str", QString::fromUtf8("\"h\xC3\xA9llo 'world'\""), 13},
            {"long_text", "local", "str", "'" + QString(80, 'x') + "'" + ellipsis, 500},
            {"raw", "local", "bytes", "b'\\x00ab\\xff'", 4},
            {"items", "local", "list",
             "[1, 'two', 3.5, None, [" + ellipsis + "], " + ellipsis + "]", 7},
            {"pair", "local", "tuple", "(1, 2)", 2},
            {"single", "local", "tuple", "(7,)", 1},
            {"empty_list", "local", "list", "[]", 0},
            {"mapping", "local", "dict", "{'a': 1, 'b': [" + ellipsis + "]}", 2},
            {"numbers", "local", "set", "{3}", 1},
            {"frozen", "local", "frozenset", "frozenset()", 0},
            {"obj", "local", "Thing", "<Thing at " + info["thing"].toString() + ">"},
            {"captured", "cell", "str", "'in a cell'", 9},
        };
        for (const Expected& e : expected) {
            const QJsonObject v = vars.value(e.name);
            const QString where = interpreter.label + ": " + e.name + " = " +
                                  QJsonDocument(v).toJson(QJsonDocument::Compact);
            QVERIFY2(!v.isEmpty(), qPrintable(where + " missing from " + order.join(", ")));
            QVERIFY2(v["kind"].toString() == e.kind, qPrintable(where));
            QVERIFY2(v["type"].toString() == e.type, qPrintable(where));
            QVERIFY2(v["value"].toString() == e.value, qPrintable(where));
            QVERIFY2(v["length"].toInteger(-1) == e.length, qPrintable(where));
        }
        // Arguments first, in the order the code declares them.
        QCOMPARE(order.mid(0, 4), QStringList({"pos", "kw", "args", "kwargs"}));
        // The caller's frame has no locals of its own beyond the module's: none are shown
        // for <module> (a module keeps its variables in a dict, not in the frame).
        const QJsonObject module =
            frameNamed(QJsonDocument::fromJson(r.outBytes)["threads"].toArray(), "<module>");
        QVERIFY(module["locals"].toArray().isEmpty());

        // The text layout: py-spy's, arguments then locals under the frame.
        const RunResult text = runGilscope({"dump", "--locals", QString::number(target.pid())});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        for (const char* line : {"        Arguments:", "            pos: 1", "        Locals:",
                                 "            raw: b'\\x00ab\\xff'", "            pi: 3.25"})
            QVERIFY2(text.out.contains(QString::fromUtf8(line) + "\n"),
                     qPrintable(interpreter.label + " lacks " + line + ":\n" + text.out));
        qInfo("%s: %lld variables right", qPrintable(interpreter.label),
              qlonglong(expected.size()));
    }

    // --blocking stops every thread for the read (ptrace, released as soon as it is taken;
    // the kernel releases them too if gilscope dies): a deadlock's threads stand still
    // anyway, so the stopped read must show exactly what the running one shows.
    void blockingShowsTheSame_data() { addInterpreterRows(findEveryBuild()); }
    void blockingShowsTheSame() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "deadlock.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        auto threadsOf = [&](const QStringList& extra) {
            const RunResult r = runGilscope(QStringList{"dump", "-a", "--locals", "--json"} +
                                            extra + QStringList{pid});
            if (r.exitCode != 0) qWarning("%s", qPrintable(describe(r)));
            QMap<QString, QJsonArray> byName;
            for (const QJsonValue& t : QJsonDocument::fromJson(r.outBytes)["threads"].toArray())
                if (t["name"].toString() == "first" || t["name"].toString() == "second")
                    byName[t["name"].toString()] = t["frames"].toArray();
            return byName;
        };
        const auto running = threadsOf({}), stopped = threadsOf({"--blocking"});
        QCOMPARE(stopped.size(), 2);
        QVERIFY(!stopped["first"].isEmpty());
        QCOMPARE(stopped["first"].first()["locals"].toArray().first()["value"].toString(),
                 QStringLiteral("17"));
        QCOMPARE(stopped, running);
    }

    // --opcodes names each frame's instruction with the target's own table: the frame
    // that sleeps is in a call (CALL, CALL_FUNCTION or CALL_METHOD, or a specialised CALL).
    void opcodesAreNamed_data() { addInterpreterRows(findEveryBuild()); }
    void opcodesAreNamed() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "locals_values.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        const RunResult r = runGilscope({"dump", "--opcodes", "--json", pid});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject hold =
            frameNamed(QJsonDocument::fromJson(r.outBytes)["threads"].toArray(), "hold");
        const QString name = hold["opcode_name"].toString();
        const QString base = name.contains('(') ? name.section('(', 1).chopped(1) : name;
        QVERIFY2(base.startsWith("CALL"), qPrintable(interpreter.label + ": " + name));
        const RunResult text = runGilscope({"dump", "--opcodes", pid});
        QVERIFY2(
            text.out.contains(":" + QString::number(hold["line"].toInt()) + ") [" + name + "]\n"),
            qPrintable(text.out));
    }

    // Issue 39's walk-through: two threads deadlocked on two locks; --locals shows each
    // one's own variables beside the line it waits on.
    void deadlockShowsEachThreadsVariables_data() { addInterpreterRows(findEveryBuild()); }
    void deadlockShowsEachThreadsVariables() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "deadlock.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const RunResult r =
            runGilscope({"dump", "-a", "--locals", "--json", QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonArray threads = QJsonDocument::fromJson(r.outBytes)["threads"].toArray();
        const QList<QPair<QString, QPair<QString, QString>>> expected = {
            {"first", {"order", "17"}}, {"second", {"customer", "'ada'"}}};
        for (const auto& [function, variable] : expected) {
            const QJsonObject frame = frameNamed(threads, function);
            QVERIFY2(!frame.isEmpty(), qPrintable(interpreter.label + ": no frame " + function));
            const QJsonArray locals = frame["locals"].toArray();
            QVERIFY2(locals.size() == 1,
                     qPrintable(interpreter.label + ": " + QJsonDocument(locals).toJson()));
            QCOMPARE(locals[0]["name"].toString(), variable.first);
            QCOMPARE(locals[0]["value"].toString(), variable.second);
        }
    }

    // --native-stacks: the C frames of the blocked call sit over the Python ones; the
    // thread still says what it waits on (the wait is no frame), and every Python frame
    // keeps its own variables although C frames were merged in between. Running (perf
    // events) and stopped (--blocking) alike.
    void nativeStacksKeepEachFramesVariables_data() { addInterpreterRows(findEveryBuild()); }
    void nativeStacksKeepEachFramesVariables() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "deadlock.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        for (const QStringList& extra : {QStringList{}, QStringList{"--blocking"}}) {
            const RunResult r =
                runGilscope(QStringList{"dump", "-a", "--locals", "--native-stacks", "--json"} +
                            extra + QStringList{QString::number(target.pid())});
            if (r.exitCode != 0 && r.err.contains("perf_event_paranoid"))
                QSKIP(qPrintable("the kernel refuses perf events here: " + r.err));
            QVERIFY2(r.exitCode == 0, qPrintable(interpreter.label + ": " + describe(r)));
            const QList<QPair<QString, QPair<QString, QString>>> expected = {
                {"first", {"order", "17"}}, {"second", {"customer", "'ada'"}}};
            for (const QJsonValue& t : QJsonDocument::fromJson(r.outBytes)["threads"].toArray()) {
                for (const auto& [function, variable] : expected) {
                    if (t["name"].toString() != function) continue;
                    QCOMPARE(t["waiting"].toString(), QStringLiteral("lock wait"));
                    const QJsonArray frames = t["frames"].toArray();
                    qsizetype at = 0; // the first Python frame
                    while (at < frames.size() && frames[at]["native"].toBool())
                        ++at;
                    QVERIFY2(at > 0 && at < frames.size(),
                             qPrintable(interpreter.label + " " + function + ": " +
                                        QJsonDocument(frames).toJson()));
                    QCOMPARE(frames[at]["function"].toString(), function);
                    const QJsonArray locals = frames[at]["locals"].toArray();
                    QVERIFY2(locals.size() == 1, qPrintable(QJsonDocument(locals).toJson()));
                    QCOMPARE(locals[0]["name"].toString(), variable.first);
                    QCOMPARE(locals[0]["value"].toString(), variable.second);
                    for (const QJsonValue& f : frames) {
                        QVERIFY(!f["function"].toString().startsWith("<lock wait"));
                        if (f["native"].toBool()) QVERIFY(!f.toObject().contains("locals"));
                    }
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestDumpLocals)
#include "test_dump_locals.moc"
