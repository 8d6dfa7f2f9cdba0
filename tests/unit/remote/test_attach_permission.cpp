// Every branch of the attach-permission explanations, from made-up views of /proc: who
// owns the target, our capabilities, Yama's ptrace_scope, user namespaces and kernel
// lockdown. (The real files give one branch per machine; this gives all of them.)
#include "core/remote/attach_permission.h"

#include <QTest>

#include <cerrno>
#include <cstring>
#include <map>
#include <unistd.h>

using namespace gilscope::remote;

namespace {

constexpr int kPid = 4321;
constexpr uint32_t kMe = 1000, kOther = 1001;

struct FakeProc final : ProcView {
    std::map<std::string, std::string> files, links;
    uint32_t euid = kMe;

    std::optional<std::string> readFile(const std::string& path) const override {
        auto it = files.find(path);
        return it == files.end() ? std::nullopt : std::optional(it->second);
    }
    std::string readLink(const std::string& path) const override {
        auto it = links.find(path);
        return it == links.end() ? std::string() : it->second;
    }
    uint32_t effectiveUid() const override { return euid; }
    std::string userName(uint32_t uid) const override {
        return uid == kMe ? "me" : uid == kOther ? "other" : "root";
    }

    // A target owned by `owner`, our capabilities (CapEff) and ptrace_scope (-1: no Yama).
    static FakeProc make(uint32_t owner, bool capSysPtrace, int scope, int pid = kPid) {
        FakeProc p;
        p.files["/proc/" + std::to_string(pid) + "/status"] =
            "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t" + std::to_string(owner) +
            "\t" + std::to_string(owner) + "\t" + std::to_string(owner) + "\t" +
            std::to_string(owner) + "\n";
        p.files["/proc/self/status"] = std::string("Name:\tgilscope\nCapInh:\t0000000000000000\n"
                                                   "CapEff:\t") +
                                       (capSysPtrace ? "0000000000080000" : "0000000000000000") +
                                       "\n";
        if (scope >= 0)
            p.files["/proc/sys/kernel/yama/ptrace_scope"] = std::to_string(scope) + "\n";
        return p;
    }
};

bool has(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestAttachPermission : public QObject {
    Q_OBJECT
private slots:
    void readsCapabilitiesAndScope() {
        QVERIFY(haveCapSysPtrace(FakeProc::make(kMe, true, 1)));
        QVERIFY(!haveCapSysPtrace(FakeProc::make(kMe, false, 1)));
        FakeProc allButPtrace = FakeProc::make(kMe, false, 1);
        allButPtrace.files["/proc/self/status"] = "CapEff:\t000001fffff7ffff\n"; // bit 19 clear
        QVERIFY(!haveCapSysPtrace(allButPtrace));
        FakeProc noCapLine = FakeProc::make(kMe, true, 1);
        noCapLine.files["/proc/self/status"] = "Name:\tgilscope\n";
        QVERIFY(!haveCapSysPtrace(noCapLine));
        QCOMPARE(yamaPtraceScope(FakeProc::make(kMe, false, 2)), 2);
        QCOMPARE(yamaPtraceScope(FakeProc::make(kMe, false, -1)), -1);
    }

    void predictGoneProcess() {
        FakeProc p = FakeProc::make(kMe, false, 0);
        QVERIFY(has(predictAccessProblem(999, p), "process 999 has exited"));
    }
    void predictWithCapability() {
        QCOMPARE(predictAccessProblem(kPid, FakeProc::make(kOther, true, 2)), std::string());
        QVERIFY(
            has(predictAccessProblem(kPid, FakeProc::make(kOther, true, 3)), "ptrace_scope is 3"));
    }
    void predictOtherUser() {
        const std::string why = predictAccessProblem(kPid, FakeProc::make(kOther, false, 0));
        QVERIFY2(has(why, "belongs to user 'other'") && has(why, "runs as 'me'"), why.c_str());
    }
    void predictYamaScopes() {
        QVERIFY(
            has(predictAccessProblem(kPid, FakeProc::make(kMe, false, 2)), "ptrace_scope is 2"));
        QVERIFY(
            has(predictAccessProblem(kPid, FakeProc::make(kMe, false, 3)), "ptrace_scope is 3"));
        QCOMPARE(predictAccessProblem(kPid, FakeProc::make(kMe, false, 1)), std::string());
        QCOMPARE(predictAccessProblem(kPid, FakeProc::make(kMe, false, -1)), std::string());
    }

    void explainGoneProcess() {
        const FakeProc p = FakeProc::make(kMe, false, 0);
        QVERIFY(has(explainAccessFailure(kPid, ESRCH, p), "has exited"));
        QVERIFY(has(explainAccessFailure(999, EPERM, p), "process 999 has exited"));
    }
    void explainOtherErrors() {
        const std::string why = explainAccessFailure(kPid, EFAULT, FakeProc::make(kMe, false, 0));
        QCOMPARE(why, "cannot read process 4321: " + std::string(std::strerror(EFAULT)));
    }
    void explainOtherUser() {
        for (int err : {EPERM, EACCES}) {
            const std::string why =
                explainAccessFailure(kPid, err, FakeProc::make(kOther, false, 1));
            QVERIFY2(has(why, "belongs to user 'other'") && has(why, "setcap cap_sys_ptrace"),
                     why.c_str());
        }
    }
    void explainRefusedDespiteCapability() {
        FakeProc ns = FakeProc::make(kMe, true, 1);
        ns.links["/proc/self/ns/user"] = "user:[4026531837]";
        ns.links["/proc/4321/ns/user"] = "user:[4026532999]";
        std::string why = explainAccessFailure(kPid, EPERM, ns);
        QVERIFY2(has(why, "sudo will not help") && has(why, "another user namespace"), why.c_str());

        FakeProc lockdown = FakeProc::make(kMe, true, 0);
        lockdown.files["/sys/kernel/security/lockdown"] = "none integrity [confidentiality]\n";
        why = explainAccessFailure(kPid, EPERM, lockdown);
        QVERIFY2(has(why, "kernel lockdown (confidentiality)"), why.c_str());

        FakeProc lsm = FakeProc::make(kMe, true, 0);
        lsm.files["/sys/kernel/security/lockdown"] = "[none] integrity confidentiality\n";
        lsm.links["/proc/self/ns/user"] = lsm.links["/proc/4321/ns/user"] = "user:[4026531837]";
        why = explainAccessFailure(kPid, EPERM, lsm);
        QVERIFY2(has(why, "security module"), why.c_str());

        why = explainAccessFailure(1, EPERM, FakeProc::make(0, true, 0, 1));
        QVERIFY2(has(why, "process 1 (the init process)"), why.c_str());
    }
    void explainCapabilityButScope3() {
        const std::string why = explainAccessFailure(kPid, EPERM, FakeProc::make(kMe, true, 3));
        QVERIFY2(has(why, "ptrace_scope is 3") && has(why, "reboot"), why.c_str());
    }
    void explainYamaScopes() {
        std::string why = explainAccessFailure(kPid, EPERM, FakeProc::make(kMe, false, 1));
        QVERIFY2(has(why, "ptrace_scope is 1") && has(why, "start the program from gilscope"),
                 why.c_str());
        why = explainAccessFailure(kPid, EPERM, FakeProc::make(kMe, false, 2));
        QVERIFY2(has(why, "ptrace_scope is 2"), why.c_str());
    }
    void explainSameUserNoYama() {
        for (int scope : {0, -1}) {
            const std::string why =
                explainAccessFailure(kPid, EPERM, FakeProc::make(kMe, false, scope));
            QVERIFY2(has(why, "PR_SET_DUMPABLE"), why.c_str());
        }
    }

    // The real view answers too (whatever this machine allows): our own process exists.
    void systemViewSeesOurselves() {
        QVERIFY(!has(predictAccessProblem(int(::getpid())), "has exited"));
        QVERIFY(has(explainAccessFailure(int(::getpid()), ESRCH), "has exited"));
    }
};

QTEST_GUILESS_MAIN(TestAttachPermission)
#include "test_attach_permission.moc"
