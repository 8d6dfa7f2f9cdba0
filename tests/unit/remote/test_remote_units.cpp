// Pieces of the remote reader checked against real interpreters and their files:
// line-table decoders against CPython's own co_positions()/co_lines(), and the
// _Py_DebugOffsets parser against the tables inside the real 3.13/3.14/3.15 binaries.
#include "core/remote/elf_image.h"
#include "core/remote/fd_describer.h"
#include "core/remote/line_table.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_objects.h"
#include "core/remote/syscall_wait.h"
#include "core/remote/thread_state_probe.h"
#include "core/remote/wait_frames.h"
#include "core/sample/thread_status.h"
#include "core/target/proc_dir.h"
#include "tests/support/layout_bounds.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/shared_dir.h"
#include "tests/unit/remote/fake_python.h"

#include <QDeadlineTimer>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryFile>
#include <QTest>
#include <QThread>
#include <arpa/inet.h>
#include <elf.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

using namespace gilscope;
using namespace gilscope::remote;
using gilscope::test::Interpreter;

namespace {

// The ELF file holding _PyRuntime for an interpreter: libpython beside a pyenv
// install, else the executable itself.
QString runtimeElf(const Interpreter& in) {
    const QFileInfo exe(in.hostExecutable);
    const QString lib =
        exe.dir().absoluteFilePath(QStringLiteral("../lib/libpython3.%1%2.so.1.0")
                                       .arg(in.minor)
                                       .arg(in.freeThreaded ? QStringLiteral("t") : QString()));
    if (QFileInfo::exists(lib)) return QFileInfo(lib).canonicalFilePath();
    return exe.canonicalFilePath();
}

std::vector<uint8_t> debugTableFromFile(const QString& path, uint32_t* versionHex) {
    auto elf = ElfImage::open(path.toStdString());
    if (!elf) return {};
    auto sym = elf->findSymbol("_PyRuntime");
    if (!sym) return {};
    auto bytes = elf->bytesAtVaddr(sym->value, 584);
    const size_t size = elf->bytesAtVaddr(sym->value, 888).empty() ? 584 : 888;
    bytes = elf->bytesAtVaddr(sym->value, size);
    if (auto v = elf->findSymbol("Py_Version")) {
        auto vb = elf->bytesAtVaddr(v->value, 4);
        if (vb.size() == 4) std::memcpy(versionHex, vb.data(), 4);
    }
    return {bytes.begin(), bytes.end()};
}

} // namespace

class TestRemoteUnits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::printTestedInterpreters(test::findInterpreters()); }

    void lineTablesMatchCpython_data() { test::addInterpreterRows(test::findInterpreters()); }
    void lineTablesMatchCpython() {
        QFETCH(Interpreter, interpreter);
        const QString here = test::sourceDir() + QStringLiteral("/tests/unit/remote");
        test::TargetOptions options;
        options.bindDirs = QStringList{here};
        test::TargetProcess p(interpreter, here + "/dump_positions.py", options);
        QVERIFY2(p.start(), qPrintable(p.error()));
        const QJsonObject info = p.readyInfo();
        const QByteArray table = QByteArray::fromHex(info["table"].toString().toLatin1());
        const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(table.data()),
                                            size_t(table.size()));
        PythonLayout layout;
        layout.minor = uint8_t(interpreter.minor);
        const LineTableFormat format = lineTableFormat(layout);
        const int first = info["firstlineno"].toInt();
        const QJsonArray positions = info["positions"].toArray();
        QVERIFY(positions.size() > 10);
        for (const QJsonValue v : positions) {
            const QJsonArray e = v.toArray();
            const SourceLocation loc = lookupLocation(format, span, first, e[0].toInt());
            QCOMPARE(loc.line, e[1].toInt());
            if (interpreter.minor >= 11) {
                QCOMPARE(loc.endLine, e[2].toInt());
                QCOMPARE(loc.column, e[3].toInt());
                QCOMPARE(loc.endColumn, e[4].toInt());
            }
        }
        // A torn table never reads out of bounds and never throws.
        for (int cut = 0; cut < table.size(); ++cut)
            (void)lookupLocation(format, span.first(size_t(cut)), first, 1 << 20);
    }

    // co_firstlineno may be 2**31 - 1: a line past it has no number (CPython 3.10+ says
    // None), never a wrapped negative one.
    void lineNumbersNeverWrap() {
        constexpr int kMax = 2147483647;
        const uint8_t lnotab[] = {2, 1}; // 3.8/3.9: from byte 2 on, one line further
        QCOMPARE(lookupLocation(LineTableFormat::Lnotab, lnotab, kMax, 0).line, kMax);
        QCOMPARE(lookupLocation(LineTableFormat::Lnotab, lnotab, kMax, 2).line, -1);
        const uint8_t table310[] = {2, 0, 2, 1}; // 3.10: bytes 0-1 on the first line, 2-3 next
        QCOMPARE(lookupLocation(LineTableFormat::Linetable310, table310, kMax, 0).line, kMax);
        QCOMPARE(lookupLocation(LineTableFormat::Linetable310, table310, kMax, 2).line, -1);
        // 3.11+: "no columns" entries (code 13) of one code unit, line deltas 0 then +1.
        const uint8_t locations[] = {0x80 | (13 << 3), 0, 0x80 | (13 << 3), 2};
        const SourceLocation same =
            lookupLocation(LineTableFormat::Locations311, locations, kMax, 0);
        QCOMPARE(same.line, kMax);
        QCOMPARE(same.endLine, kMax);
        const SourceLocation past =
            lookupLocation(LineTableFormat::Locations311, locations, kMax, 2);
        QCOMPARE(past.line, -1);
        QCOMPARE(past.endLine, -1);
        // A long-form entry (code 14) whose columns, stored plus one, are past what an int
        // holds (2**31): no column, never a wrapped one (the fuzzer found this).
        const uint8_t hugeColumns[] = {0x80 | (14 << 3),
                                       0,
                                       0,
                                       0x40,
                                       0x40,
                                       0x40,
                                       0x40,
                                       0x40,
                                       0x02,
                                       0x40,
                                       0x40,
                                       0x40,
                                       0x40,
                                       0x40,
                                       0x02};
        const SourceLocation huge =
            lookupLocation(LineTableFormat::Locations311, hugeColumns, 7, 0);
        QCOMPARE(huge.line, 7);
        QCOMPARE(huge.column, -1);
        QCOMPARE(huge.endColumn, -1);
    }

    void debugOffsetsFromRealBinaries_data() {
        test::addInterpreterRows(test::findInterpreters(13));
    }
    void debugOffsetsFromRealBinaries() {
        QFETCH(Interpreter, interpreter);
        uint32_t version = 0;
        std::vector<uint8_t> table = debugTableFromFile(runtimeElf(interpreter), &version);
        QVERIFY2(table.size() >= 584, qPrintable(runtimeElf(interpreter)));
        QCOMPARE(int((version >> 16) & 0xff), interpreter.minor);
        auto layout = layoutFromDebugOffsets(table, version);
        QVERIFY2(layout, layout ? "" : layout.error().message.c_str());
        QCOMPARE(int(layout->minor), interpreter.minor);
        QCOMPARE(layout->strAsciiSize, uint64_t(40));
        QCOMPARE(layout->frPrevious, uint64_t(8));
        // Where a walk must end: 3.15's tstate->base_frame, else the entry shim frame.
        if (interpreter.minor >= 15) {
            QCOMPARE(layout->tsBaseFrame, uint64_t(80));
            QVERIFY(layout->base == PythonLayout::Base::BaseFrame);
        } else {
            QCOMPARE(layout->tsBaseFrame, kAbsent);
            QVERIFY(layout->base == PythonLayout::Base::ShimFrame);
        }
        if (interpreter.minor == 13) { // measured with offsetof() (remote-reading.md §4)
            QCOMPARE(layout->tsCurrentFrame, uint64_t(72));
            QCOMPARE(layout->tsNativeThreadId, uint64_t(160));
            QCOMPARE(layout->inThreadsMain, uint64_t(7352));
            QCOMPARE(layout->inGcCollecting, uint64_t(7600));
            QCOMPARE(layout->coCodeAdaptive, uint64_t(200));
            QCOMPARE(layout->inModules, uint64_t(7656));
        }
        // gc.get_stats()'s counts, where each build keeps them (measured live, and checked
        // against gc.get_stats() by test_counters): 3.13/3.14 inline, 3.15 behind a pointer.
        QVERIFY(layout->gcStats.valid());
        QCOMPARE(layout->inGcStats, uint64_t(interpreter.minor == 15 ? 7400 + 104 : 7528));
        QCOMPARE(layout->gcStats.behindPointer, interpreter.minor == 15);
        QCOMPARE(layout->gcStats.size, uint64_t(interpreter.minor == 15 ? 1120 : 72));
        // threading's registry (thread names): dicts and heap types as measured live.
        QCOMPARE(layout->dictKeys, uint64_t(32));
        QCOMPARE(layout->dictValues, uint64_t(40));
        QCOMPARE(layout->htCachedKeys, uint64_t(interpreter.minor >= 15 ? 888 : 880));
        // Damage is refused, never trusted.
        auto broken = table;
        broken[0] = 'X';
        QCOMPARE(layoutFromDebugOffsets(broken, version).error().kind,
                 ErrorKind::UnsupportedVersion);
        QVERIFY(!layoutFromDebugOffsets(table, version + 0x10000)); // minor mismatch
        broken = table;
        broken[0x10] = 1; // free-threaded
        QVERIFY(QString::fromStdString(layoutFromDebugOffsets(broken, version).error().message)
                    .contains("free-threaded"));
        broken = table;
        const uint64_t huge = uint64_t(1) << 40;
        std::memcpy(broken.data() + 0x48, &huge, 8); // interpreter_state.threads_head
        const auto rejected = layoutFromDebugOffsets(broken, version);
        QVERIFY(!rejected);
        // The rejection names the check that failed.
        QVERIFY2(QString::fromStdString(rejected.error().message)
                     .contains("interpreter.threads_head lies outside its structure"),
                 rejected.error().message.c_str());
        QVERIFY(!layoutFromDebugOffsets(std::span(table).first(100), version));
    }

    // A free-threaded 3.13t's own table (issue 37): read, not refused, with the 32-byte
    // object header and the instance layout compiled from its headers, and no GIL fields.
    void debugOffsetsFromFreeThreadedBinary_data() {
        test::addInterpreterRows(test::findFreeThreadedInterpreters());
    }
    void debugOffsetsFromFreeThreadedBinary() {
        QFETCH(Interpreter, interpreter);
        uint32_t version = 0;
        std::vector<uint8_t> table = debugTableFromFile(runtimeElf(interpreter), &version);
        QVERIFY2(table.size() >= 584, qPrintable(runtimeElf(interpreter)));
        auto layout = layoutFromDebugOffsets(table, version);
        QVERIFY2(layout, layout ? "" : layout.error().message.c_str());
        QVERIFY(layout->freeThreaded);
        QCOMPARE(layout->objectHeader, uint64_t(32));
        QCOMPARE(layout->obType, uint64_t(24));
        QCOMPARE(layout->varSize, uint64_t(32));
        QCOMPARE(layout->headerShift(), uint64_t(16));
        QCOMPARE(layout->strAsciiSize, uint64_t(56));
        QCOMPARE(layout->strState, uint64_t(48));
        QCOMPARE(layout->dictKeys, uint64_t(48));
        QCOMPARE(layout->htCachedKeys, uint64_t(896));
        QCOMPARE(layout->managedDict, int64_t(-8));
        QCOMPARE(layout->inGilHolder, kAbsent); // no GIL to read
        QCOMPARE(layout->inGilLocked, kAbsent);
        QCOMPARE(layout->frameTagMask, ~uint64_t{0});
        QCOMPARE(layout->inGcStats, uint64_t(7528)); // as the GIL build's (measured live)
        QVERIFY(!test::fieldOutsideItsStruct(*layout));
        // Its table with the GIL build's flag is a GIL table with the wrong header: refused.
        auto broken = table;
        broken[0x10] = 0;
        QVERIFY(!layoutFromDebugOffsets(broken, version));
    }

    // Item 9: every word of a real table, made to lie (past its structure, far out, or
    // wrapping): the table is refused, or every field the readers use still fits.
    void debugOffsetsEveryFieldChecked_data() {
        test::addInterpreterRows(test::findInterpreters(13) + test::findFreeThreadedInterpreters());
    }
    void debugOffsetsEveryFieldChecked() {
        QFETCH(Interpreter, interpreter);
        uint32_t version = 0;
        const std::vector<uint8_t> table = debugTableFromFile(runtimeElf(interpreter), &version);
        QVERIFY2(table.size() >= 584, qPrintable(runtimeElf(interpreter)));
        QVERIFY(!test::fieldOutsideItsStruct(layoutFromDebugOffsets(table, version).value()));
        int refused = 0, tried = 0;
        for (size_t pos = 0x18; pos + 8 <= table.size(); pos += 8) {
            uint64_t real = 0;
            std::memcpy(&real, table.data() + pos, 8);
            for (const uint64_t lie :
                 {real + 1, real + 4096, uint64_t{1} << 40, ~uint64_t{0} - 3}) {
                auto broken = table;
                std::memcpy(broken.data() + pos, &lie, 8);
                auto layout = layoutFromDebugOffsets(broken, version);
                ++tried;
                if (!layout) {
                    ++refused;
                    continue;
                }
                const char* outside = test::fieldOutsideItsStruct(*layout);
                QVERIFY2(!outside, qPrintable(QStringLiteral("table word 0x%1 = %2: %3 accepted")
                                                  .arg(pos, 0, 16)
                                                  .arg(lie)
                                                  .arg(outside)));
            }
        }
        qInfo("%s: %d of %d lies refused", qPrintable(interpreter.label), refused, tried);
    }

    // The built-in tables (3.8-3.12) keep every field inside its structure too.
    void builtinTablesFieldsFit() {
        for (const uint32_t hex :
             {0x030800f0u, 0x030900f0u, 0x030a00f0u, 0x030b00f0u, 0x030c00f0u}) {
            auto layout = builtinLayout(hex);
            QVERIFY(layout);
            QVERIFY(layout->gcStats.valid()); // gc.get_stats()'s counts are located
            const char* outside = test::fieldOutsideItsStruct(*layout);
            QVERIFY2(!outside, outside);
        }
    }

    // Item 7: a str read with offsets that lie past the header copy (a hostile table, or
    // one the parser let through) is refused, never read past the copy.
    void stringOffsetsOutsideTheCopy() {
        PythonLayout layout = builtinLayout(0x030c00f0).value();
        test::FakeMemory mem;
        test::FakePython py(mem, layout);
        const uint64_t text = py.str("hello");
        QCOMPARE(RemoteObjects(mem, layout).readString(text), std::optional<std::string>("hello"));
        for (const uint64_t lie :
             {uint64_t{512}, uint64_t{509}, uint64_t{1} << 40, ~uint64_t{0} - 1}) {
            PythonLayout bad = layout;
            bad.strState = lie;
            QCOMPARE(RemoteObjects(mem, bad).readString(text), std::nullopt);
            bad = layout;
            bad.strLength = lie;
            QCOMPARE(RemoteObjects(mem, bad).readString(text), std::nullopt);
            bad = layout;
            bad.strAsciiSize = bad.strCompactSize = lie;
            QCOMPARE(RemoteObjects(mem, bad).readString(text), std::nullopt);
            bad = layout;
            bad.bytesSize = lie;
            QCOMPARE(RemoteObjects(mem, bad).readBytes(py.bytes({1, 2})), std::nullopt);
        }
    }

    void builtinTablesRefuseOthers() {
        QVERIFY(builtinLayout(0x030800f0));
        QVERIFY(builtinLayout(0x030c01f0));
        QCOMPARE(builtinLayout(0x030700f0).error().kind, ErrorKind::UnsupportedVersion);
        QCOMPARE(builtinLayout(0x020700f0).error().kind, ErrorKind::UnsupportedVersion);
        QCOMPARE(PythonVersion::fromHex(0x030e00a2).str(), std::string("3.14.0a2"));
    }

    void unicodeDecoding() {
        const uint8_t latin1[] = {'l', 0xe9};
        QCOMPARE(decodeUnicodeData(latin1, 2, 1), std::string("l\xc3\xa9"));
        const uint16_t ucs2[] = {0x6771, 0xD800}; // 東 and a lone surrogate
        QCOMPARE(decodeUnicodeData(reinterpret_cast<const uint8_t*>(ucs2), 2, 2),
                 std::string("\xe6\x9d\xb1\xef\xbf\xbd"));
        const uint32_t ucs4[] = {0x1F600};
        QCOMPARE(decodeUnicodeData(reinterpret_cast<const uint8_t*>(ucs4), 1, 4),
                 std::string("\xf0\x9f\x98\x80"));
    }

    void threadStateFromSyscallFile() {
        using P = remote::ThreadStateProbe;
        QCOMPARE(P::parse("running\n").cpu, P::Cpu::OnCpu);
        // Blocked in futex(uaddr, ...) on x86_64: idle, with the futex word.
        const P::State futex = P::parse("202 0x7f1e2c0a5b28 0x189 0x0 0x0 0x0 0xffffffff "
                                        "0x7ffd5a0c1e50 0x7f1e2c2d0d61\n");
        QCOMPARE(futex.cpu, P::Cpu::Idle);
#if defined(__x86_64__)
        QCOMPARE(futex.futexAddr, uint64_t{0x7f1e2c0a5b28});
#endif
        const P::State sleeping =
            P::parse("230 0x1 0x1 0x7fff45cc0280 0x0 0x0 0x0 0x7fff45 0x7f1e\n");
        QCOMPARE(sleeping.cpu, P::Cpu::Idle);
        QCOMPARE(sleeping.futexAddr, uint64_t{0});
        QCOMPARE(P::parse("-1 0x7ffd5a0c1e50 0x401000\n").cpu, P::Cpu::Idle);
        QCOMPARE(P::parse("").cpu, P::Cpu::Unknown);
        QCOMPARE(P::parse("garbage").cpu, P::Cpu::Unknown);
    }

    void waitReasonFromSyscallFile() {
        using P = remote::ThreadStateProbe;
        using remote::classifySyscall;
        using remote::SyscallArch;
        // The record's arguments reach the classifier: recvfrom(fd 7, ...) on this machine.
        const long recvfrom = remote::hostSyscallArch() == SyscallArch::X86_64 ? 45 : 207;
        const P::State recv = P::parse(qPrintable(
            QStringLiteral("%1 0x7 0x7f00 0x10 0x0 0x0 0x0 0x7ffd50 0x7f1e\n").arg(recvfrom)));
        QCOMPARE(recv.wait.reason, WaitReason::IoRead);
        QCOMPARE(recv.wait.fd, 7);
        QCOMPARE(recv.wait.name, std::string_view("recvfrom"));
        QCOMPARE(P::parse("running\n").wait.reason, WaitReason::Unknown); // not consulted
        QCOMPARE(P::parse("-1 0x7ffd5a0c1e50 0x401000\n").wait.reason, WaitReason::Other);
        // A record cut short or made of junk: classified from what is there, no crash.
        QCOMPARE(P::parse("7 0xzz").wait.reason, WaitReason::Sleep);
        QCOMPARE(P::parse("99999 ").wait.reason, WaitReason::Other);

        // Both kernels' tables, whichever machine runs the test.
        const uint64_t none[6] = {}, fd3[6] = {3, 0, 0, 0, 0, 0}, twoFds[6] = {0, 2, 0, 0, 0, 0},
                       hugeFd[6] = {0x1'0000'0003, 0, 0, 0, 0, 0};
        struct Case {
            SyscallArch arch;
            long nr;
            const uint64_t (&args)[6];
            WaitReason reason;
            int fd;
        };
        const Case cases[] = {
            {SyscallArch::X86_64, 202, none, WaitReason::Lock, -1},     // futex
            {SyscallArch::Aarch64, 98, none, WaitReason::Lock, -1},     // futex
            {SyscallArch::X86_64, 0, fd3, WaitReason::IoRead, 3},       // read
            {SyscallArch::Aarch64, 63, fd3, WaitReason::IoRead, 3},     // read
            {SyscallArch::X86_64, 44, fd3, WaitReason::IoWrite, 3},     // sendto
            {SyscallArch::Aarch64, 206, fd3, WaitReason::IoWrite, 3},   // sendto
            {SyscallArch::X86_64, 7, twoFds, WaitReason::Poll, -1},     // poll, 2 fds
            {SyscallArch::X86_64, 7, none, WaitReason::Sleep, -1},      // poll, none
            {SyscallArch::Aarch64, 73, twoFds, WaitReason::Poll, -1},   // ppoll
            {SyscallArch::X86_64, 270, none, WaitReason::Sleep, -1},    // pselect6(0, ...)
            {SyscallArch::X86_64, 270, fd3, WaitReason::Poll, -1},      // pselect6(3, ...)
            {SyscallArch::X86_64, 232, fd3, WaitReason::Poll, -1},      // epoll_wait
            {SyscallArch::Aarch64, 22, fd3, WaitReason::Poll, -1},      // epoll_pwait
            {SyscallArch::X86_64, 230, none, WaitReason::Sleep, -1},    // clock_nanosleep
            {SyscallArch::Aarch64, 115, none, WaitReason::Sleep, -1},   // clock_nanosleep
            {SyscallArch::X86_64, 61, none, WaitReason::ChildWait, -1}, // wait4
            {SyscallArch::Aarch64, 260, none, WaitReason::ChildWait, -1},
            {SyscallArch::X86_64, 42, fd3, WaitReason::Connect, 3},
            {SyscallArch::Aarch64, 242, fd3, WaitReason::Accept, 3},  // accept4
            {SyscallArch::X86_64, 0, hugeFd, WaitReason::IoRead, -1}, // not an int: no fd
            {SyscallArch::X86_64, 39, none, WaitReason::Other, -1},   // getpid
            {SyscallArch::Aarch64, 7, none, WaitReason::Other, -1},   // not poll on aarch64
        };
        for (const Case& c : cases) {
            const remote::SyscallWait w = classifySyscall(c.arch, c.nr, c.args);
            QVERIFY2(w.reason == c.reason && w.fd == c.fd,
                     qPrintable(QStringLiteral("nr %1 on %2: %3 fd %4")
                                    .arg(c.nr)
                                    .arg(c.arch == SyscallArch::X86_64 ? "x86_64" : "aarch64")
                                    .arg(QString::fromUtf8(waitReasonName(w.reason).data(),
                                                           waitReasonName(w.reason).size()))
                                    .arg(w.fd)));
        }
        // The status word keeps CPython's bits and carries the reason above them.
        const uint32_t status =
            withWaitReason(ThreadStatus::HasGil | ThreadStatus::MainThread, WaitReason::IoWrite);
        QCOMPARE(status & 0xFFu, ThreadStatus::HasGil | ThreadStatus::MainThread);
        QCOMPARE(waitReasonOf(status), WaitReason::IoWrite);
        QCOMPARE(waitReasonOf(0xF00u), WaitReason::Unknown);
        // Every leaf name the reader writes is read back as its reason (a .bin replay).
        for (int i = 1; i < kWaitReasonCount; ++i) {
            const auto reason = WaitReason(i);
            for (std::string_view target :
                 {std::string_view(), std::string_view("TCP 1.2.3.4:5")}) {
                remote::SyscallWait w{reason, 3, "recvfrom", 45};
                const std::string name = remote::WaitFrames::frameName(w, target);
                const auto back = waitReasonOfFrame("~", name);
                QVERIFY2(back && *back == reason, name.c_str());
                QVERIFY(!waitReasonOfFrame("app.py", name)); // a real function's file
            }
        }
        QVERIFY(!waitReasonOfFrame("~", "<GC>"));
        QVERIFY(!waitReasonOfFrame("~", "<reader>"));
        QVERIFY(!waitReasonOfFrame("~", "<"));
    }

    void fdDescriptions() {
        using D = remote::FdDescriber;
        // Kernel table lines as /proc/PID/net/* prints them (header line first).
        const char* tcp =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
            "timeout inode\n"
            "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0  "
            "      0 1111 1 0000000000000000 100 0 0 10 0\n"
            "   1: 0100007F:C350 0500000A:1538 01 00000000:00000000 00:00000000 00000000  1000  "
            "      0 2222 1 0000000000000000 20 4 30 10 -1\n";
        const char* tcp6 =
            "  sl  local_address                         remote_address                        "
            "st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
            "   0: 00000000000000000000000001000000:A000 00000000000000000000000001000000:1F90 "
            "01 00000000:00000000 00:00000000 00000000  1000        0 3333 1 0 20 4 30 10 -1\n";
        const char* unixTable = "Num       RefCount Protocol Flags    Type St Inode Path\n"
                                "0000000000000000: 00000002 00000000 00010000 0001 01 4444 "
                                "/run/app.sock\n"
                                "0000000000000000: 00000003 00000000 00000000 0001 03 5555\n";
        const D::Tables t{tcp, tcp6, "", "", unixTable};
        QCOMPARE(D::describeLink("socket:[1111]", t), std::string("TCP listen 127.0.0.1:8080"));
        QCOMPARE(D::describeLink("socket:[2222]", t), std::string("TCP 10.0.0.5:5432"));
        QCOMPARE(D::describeLink("socket:[3333]", t), std::string("TCP [::1]:8080"));
        QCOMPARE(D::describeLink("socket:[4444]", t), std::string("Unix socket /run/app.sock"));
        QCOMPARE(D::describeLink("socket:[5555]", t), std::string("Unix socket"));
        QCOMPARE(D::describeLink("socket:[9999]", t), std::string("socket")); // not found
        QCOMPARE(D::describeLink("pipe:[77]", t), std::string("pipe"));
        QCOMPARE(D::describeLink("anon_inode:[eventfd]", t), std::string("eventfd"));
        QCOMPARE(D::describeLink("/var/log/app.log", t), std::string("/var/log/app.log"));
        // Issue 47: connections a listening socket accepted are told by the server's port,
        // so a server's clients (a new ephemeral port each) are one frame, not one each.
        const std::string served =
            std::string(tcp) +
            "   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  "
            "1000        0 6666 1 0000000000000000 20 4 30 10 -1\n"
            "   3: 0100007F:1F90 0100007F:D432 01 00000000:00000000 00:00000000 00000000  "
            "1000        0 7777 1 0000000000000000 20 4 30 10 -1\n";
        const D::Tables s{served, tcp6, "", "", unixTable};
        QCOMPARE(D::describeLink("socket:[6666]", s), std::string("TCP client of 127.0.0.1:8080"));
        QCOMPARE(D::describeLink("socket:[7777]", s), std::string("TCP client of 127.0.0.1:8080"));
        QCOMPARE(D::describeLink("socket:[2222]", s), std::string("TCP 10.0.0.5:5432"));
        // A busy host's namespace: the target's sockets are found past any number of
        // others' rows (the index stopped at 4,096 rows), and only those are kept.
        std::string busy = "  sl  local_address rem_address   st ...\n";
        for (int i = 0; i < 20000; ++i)
            busy += "   0: 0100007F:C350 0500000A:1538 01 00000000:00000000 00:00000000 "
                    "00000000  1000        0 " +
                    std::to_string(100000 + i) + " 1 0 20 4 30 10 -1\n";
        busy += "   1: 0100007F:C351 0600000A:0050 01 00000000:00000000 00:00000000 00000000  "
                "1000        0 99 1 0 20 4 30 10 -1\n";
        const auto found = D::socketsOf({busy, "", "", "", ""}, {"99", "100005"});
        QCOMPARE(found.size(), size_t(2));
        QCOMPARE(found.at("99"), std::string("TCP 10.0.0.6:80"));

        // Rows cut short or with junk addresses are passed over, never misread.
        const D::Tables junk{"header\n 0: zz:zz 00:00 01 0 0 0 0 0 1111\n0:\n", "", "", "", ""};
        QCOMPARE(D::describeLink("socket:[1111]", junk), std::string("TCP socket"));

        // This process's own descriptors, through /proc: a connected loopback socket
        // names its peer's port, and a pipe is a pipe.
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        QVERIFY(listener >= 0);
        QCOMPARE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        QCOMPARE(::listen(listener, 64), 0); // room for every connection below
        QCOMPARE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
        const int port = ntohs(addr.sin_port);
        const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QCOMPARE(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        auto proc = target::ProcDir::open(int(::getpid()));
        QVERIFY(proc);
        D self(*proc);
        QCOMPARE(self.describe(client).value_or(""),
                 QStringLiteral("TCP 127.0.0.1:%1").arg(port).toStdString());
        QCOMPARE(self.describe(listener).value_or(""),
                 QStringLiteral("TCP listen 127.0.0.1:%1").arg(port).toStdString());
        // Twenty more connections: one reading of the tables describes them all.
        const uint64_t readsBefore = self.tableReads();
        std::vector<int> clients;
        for (int i = 0; i < 20; ++i) {
            clients.push_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
            QCOMPARE(::connect(clients.back(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        }
        // Past the least time between readings of the tables (50 ms, more if they are big).
        QTest::qWait(int(std::chrono::duration_cast<std::chrono::milliseconds>(self.readInterval())
                             .count()) +
                     10);
        for (int fd : clients) {
            const std::string said = self.describe(fd).value_or("(nothing)");
            QVERIFY2(said == QStringLiteral("TCP 127.0.0.1:%1").arg(port).toStdString(),
                     said.c_str());
        }
        QCOMPARE(self.tableReads(), readsBefore + 1);
        for (int fd : clients)
            ::close(fd);
        ::close(client);
        ::close(listener);
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        QCOMPARE(self.describe(fds[0]).value_or(""), std::string("pipe"));
        // A closed fd is not described at all.
        ::close(fds[0]);
        ::close(fds[1]);
        QVERIFY(!self.describe(fds[0]));
        QVERIFY(!self.describe(-1));
    }

    void elfRejectsNonElf() {
        QVERIFY(!ElfImage::open("/proc/self/status"));
        QVERIFY(!ElfImage::open("/nonexistent"));
        auto self = ElfImage::open("/proc/self/exe");
        QVERIFY(self);
        QVERIFY(!self->findSymbol("_PyRuntime"));
    }

    // The file is the target's: one that shrinks while gilscope reads it (a target may
    // truncate its own libpython) gives lookups that find nothing. A mapped file gave SIGBUS.
    void elfSurvivesAFileThatShrinks() {
        const auto interpreters = test::findInterpreters();
        if (interpreters.empty()) QSKIP("no Python interpreter here");
        QFile elf(runtimeElf(interpreters.front()));
        QVERIFY(elf.open(QIODevice::ReadOnly));
        const QByteArray bytes = elf.readAll();
        QTemporaryFile copy;
        QVERIFY(copy.open());
        QCOMPARE(copy.write(bytes), bytes.size());
        QVERIFY(copy.flush());

        auto whole = ElfImage::open(copy.fileName().toStdString());
        QVERIFY(whole);
        QVERIFY(whole->findSymbol("_PyRuntime"));
        // The last bytes of the last segment with file data: far past the first page.
        const ElfImage::Load& load = whole->loads().back();
        QVERIFY(load.offset + load.filesz > 4096 && load.filesz >= 8);
        const uint64_t tail = load.vaddr + load.filesz - 8;
        QCOMPARE(whole->bytesAtVaddr(tail, 8).size(), size_t(8));
        auto shrunk = ElfImage::open(copy.fileName().toStdString());
        QVERIFY(shrunk);
        QVERIFY(copy.resize(4096)); // the headers stay, the tables and data go
        QVERIFY(!shrunk->findSymbol("_PyRuntime"));
        QVERIFY(whole->bytesAtVaddr(tail, 8).empty());
        QVERIFY(whole->findSymbol("_PyRuntime")); // read before: still known
    }

    // A crafted header with e_phentsize 0 once gave 65,535 copies of one segment, and
    // every lookup went quadratic (a fuzzer timeout): such tables are refused.
    void elfRejectsMalformedHeaderTables() {
        QFile exe("/proc/self/exe");
        QVERIFY(exe.open(QIODevice::ReadOnly));
        QByteArray bytes = exe.read(1 << 16);
        QTemporaryFile copy;
        QVERIFY(copy.open());
        QVERIFY(copy.write(bytes) == bytes.size());
        copy.flush();
        QVERIFY(ElfImage::open(copy.fileName().toStdString()));
        Elf64_Ehdr eh{};
        std::memcpy(&eh, bytes.constData(), sizeof eh);
        eh.e_phentsize = 0;
        eh.e_phnum = 0xffff;
        std::memcpy(bytes.data(), &eh, sizeof eh);
        QVERIFY(copy.seek(0));
        QVERIFY(copy.write(bytes) == bytes.size());
        copy.flush();
        const auto bad = ElfImage::open(copy.fileName().toStdString());
        QVERIFY(!bad);
        QVERIFY(QString::fromStdString(bad.error().message).contains("malformed"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteUnits)
#include "test_remote_units.moc"
