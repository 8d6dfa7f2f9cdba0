// `--gecko --opcodes` names each opcode as the target's own interpreter does: every
// opcode marker recorded from a real process, on every interpreter present, must carry
// the name (and base name) that the interpreter's own opcode modules give its number.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sys/resource.h>

using namespace gilscope::test;
using nlohmann::json;

namespace {

// Prints {"names": {number: name}, "base": {number: base number}} from the running
// interpreter's own modules, the way profiling.sampling.opcode_utils reads them.
const char* kOwnTable = R"(
import dis, json, opcode
names = {i: n for i, n in enumerate(opcode.opname) if not n.startswith('<')}
spec = getattr(opcode, '_specialized_opmap', None)
if spec is None:
    spec = {n: i for i, n in enumerate(getattr(dis, '_all_opname', [])) if not n.startswith('<')}
names.update({i: n for n, i in spec.items()})
num = {n: i for i, n in names.items()}
base = {}
for b, vs in getattr(opcode, '_specializations', {}).items():
    for v in vs:
        if v in num and b in opcode.opmap:
            base[num[v]] = opcode.opmap[b]
print(json.dumps({'names': names, 'base': base}))
)";

json ownTable(const Interpreter& in) {
    const RunResult r = in.inChroot
                            ? runProgram("chroot", {chrootDir(), in.executable, "-c", kOwnTable})
                            : runProgram(in.executable, {"-c", kOwnTable});
    if (r.exitCode != 0) return {};
    return json::parse(r.outBytes.toStdString(), nullptr, false);
}

} // namespace

class TestRecordOpcodes : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        setpriority(PRIO_PROCESS, 0, -10);
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        printTestedInterpreters(all_);
    }

    void opcodeNamesAreTheTargetVersions_data() { addInterpreterRows(all_); }
    void opcodeNamesAreTheTargetVersions() {
        QFETCH(Interpreter, interpreter);
        const json table = ownTable(interpreter);
        QVERIFY2(table.is_object() && table["names"].size() > 50, "cannot read the opcode table");
        TargetProcess target(interpreter, "heavy_light.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString out = dir.filePath("ops.json");
        const RunResult r = runGilscope({"attach", QString::number(target.pid()), "-d", "1",
                                         "--gecko", "--opcodes", "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const json profile = json::parse(f.readAll().toStdString());

        std::set<std::string> seen;
        int markers = 0;
        for (const auto& th : profile["threads"])
            for (const auto& d : th["markers"]["data"]) {
                if (!d.is_object() || d.value("type", "") != "Opcode") continue;
                ++markers;
                const std::string number = std::to_string(d["opcode"].get<int>());
                QVERIFY2(
                    table["names"].contains(number),
                    qPrintable(
                        QString("opcode %1 has no name on this interpreter").arg(number.c_str())));
                const std::string name = table["names"][number];
                std::string base = name;
                if (table["base"].contains(number))
                    base = table["names"][std::to_string(table["base"][number].get<int>())];
                const std::string want = base == name ? name : name + " (" + base + ")";
                QCOMPARE(d["opname"].get<std::string>(), want);
                QCOMPARE(d["base_opname"].get<std::string>(), base);
                seen.insert(name);
            }
        qInfo("%d opcode markers, %zu distinct opcodes", markers, seen.size());
        QVERIFY2(seen.size() >= 3, "too few distinct opcodes recorded to check the table");
    }
};

QTEST_GUILESS_MAIN(TestRecordOpcodes)
#include "test_record_opcodes.moc"
