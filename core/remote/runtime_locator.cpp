#include "core/remote/runtime_locator.h"

#include "core/remote/attach_permission.h"
#include "core/remote/elf_image.h"
#include "core/remote/proc_files.h"
#include "core/remote/struct_view.h"
#include "core/target/attached_process.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gilscope::remote {

namespace {

std::string basenameOf(const std::string& p) {
    const size_t slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

int minorFromPath(const std::string& path) {
    static const std::regex re(R"(python3\.(\d+))");
    std::smatch m;
    const std::string base = basenameOf(path);
    if (!std::regex_search(base, m, re)) return -1;
    const auto minor = parseVersionPart(std::string_view(&*m[1].first, m[1].length()));
    return minor ? *minor : -1;
}

// Paths worth checking, most likely first: a mapped libpython, then the executable,
// then any other mapped file whose name mentions python (embedders).
std::vector<std::string> candidatePaths(const std::vector<MapEntry>& maps, const std::string& exe) {
    std::vector<std::string> libs, others;
    for (const MapEntry& m : maps) {
        if (m.path.empty() || m.path.front() != '/') continue;
        const std::string base = basenameOf(m.path);
        auto add = [&](std::vector<std::string>& v) {
            for (const auto& p : v)
                if (p == m.path) return;
            v.push_back(m.path);
        };
        if (base.rfind("libpython3", 0) == 0)
            add(libs);
        else if (base.find("python") != std::string::npos)
            add(others);
    }
    std::vector<std::string> out = libs;
    if (!exe.empty()) out.push_back(exe);
    for (const auto& o : others)
        if (o != exe) out.push_back(o);
    return out;
}

// The load bias of `path`: a mapping of the file that contains a PT_LOAD's file offset.
std::optional<uint64_t> loadBias(const ElfImage& elf, const std::vector<MapEntry>& maps,
                                 const std::string& path) {
    for (const ElfImage::Load& load : elf.loads()) {
        for (const MapEntry& m : maps) {
            if (m.path != path) continue;
            const uint64_t len = m.end - m.start;
            if (load.offset >= m.offset && load.offset < m.offset + len)
                return m.start + (load.offset - m.offset) - load.vaddr;
        }
    }
    return std::nullopt;
}

// The ELF of a file the target maps, through its door (core/target/process_maps): the
// mapping itself, or the same file in the target's root as the target may read it.
Result<ElfImage> openMappedElf(const target::AttachedProcess& door, const std::string& mapPath,
                               const std::vector<MapEntry>& maps) {
    for (const MapEntry& m : maps)
        if (m.path == mapPath) {
            auto fd = target::openMappedFile(door, m);
            if (!fd) return fd.error();
            return ElfImage::open(std::move(*fd), mapPath);
        }
    return makeError(ErrorKind::Io, mapPath + " is not mapped");
}

} // namespace

Result<RuntimeLocation> locateRuntime(const target::AttachedProcess& door) {
    const int pid = door.pid();
    auto maps = door.maps();
    if (!maps) {
        if (!door.stillAttached())
            return makeError(ErrorKind::ProcessNotFound,
                             "process " + std::to_string(pid) + " exited before it could be read");
        return makeError(ErrorKind::PermissionDenied, "cannot read process " + std::to_string(pid) +
                                                          ": " + explainAccessFailure(pid, EACCES));
    }
    RuntimeLocation loc;
    loc.executable = door.proc().readLink("exe").value_or("");
    const std::string exeMapPath = loc.executable;

    for (const std::string& mapPath : candidatePaths(*maps, exeMapPath)) {
        auto elf = openMappedElf(door, mapPath, *maps);
        if (!elf) continue;
        auto runtimeSym = elf->findSymbol("_PyRuntime");
        auto runtimeSec = elf->findSection(".PyRuntime");
        if (!runtimeSym && !runtimeSec) continue;
        auto bias = loadBias(*elf, *maps, mapPath);
        if (!bias) continue;
        loc.elfPath = mapPath;
        loc.bias = *bias;
        const uint64_t runtimeVaddr = runtimeSym ? runtimeSym->value : runtimeSec->addr;
        loc.runtimeAddr = *bias + runtimeVaddr;
        if (auto s = elf->findSymbol("PyCode_Type")) loc.codeTypeAddr = *bias + s->value;
        if (auto s = elf->findSymbol("_Py_NoneStruct")) loc.noneAddr = *bias + s->value;
        if (auto s = elf->findSymbol("Py_Version")) {
            if (auto hex = StructView(elf->bytesAtVaddr(s->value, 4)).get<uint32_t>(0)) {
                loc.versionHex = *hex;
                loc.microKnown = true;
            }
        }
        if (auto bss = elf->findSection(".bss")) {
            loc.bssAddr = *bias + bss->addr;
            loc.bssSize = bss->size;
        }
        loc.minorFromName = minorFromPath(mapPath);
        if (loc.minorFromName < 0) loc.minorFromName = minorFromPath(loc.executable);
        if (loc.versionHex == 0 && loc.minorFromName >= 0)
            loc.versionHex = 0x03000000u | (uint32_t(loc.minorFromName) << 16); // micro unknown
        return loc;
    }
    return makeError(
        ErrorKind::NotPython,
        "process " + std::to_string(pid) + " (" +
            (loc.executable.empty() ? std::string("unknown executable") : loc.executable) +
            ") is not a CPython process: no _PyRuntime in its executable or "
            "libraries; pick a Python pid from 'gilscope ps'");
}

uint64_t locateAsyncioDebug(const target::AttachedProcess& door, const RuntimeLocation& loc) {
    auto maps = door.maps();
    if (!maps) return 0;
    std::vector<std::string> paths{loc.elfPath};
    for (const MapEntry& m : *maps)
        if (basenameOf(m.path).rfind("_asyncio", 0) == 0 &&
            std::find(paths.begin(), paths.end(), m.path) == paths.end())
            paths.push_back(m.path);
    for (const std::string& mapPath : paths) {
        auto elf = openMappedElf(door, mapPath, *maps);
        if (!elf) continue;
        auto section = elf->findSection(".AsyncioDebug");
        if (!section || !section->hasFileData) continue;
        if (auto bias = loadBias(*elf, *maps, mapPath)) return *bias + section->addr;
    }
    return 0;
}

void refineVersionFromMemory(RuntimeLocation& loc, RemoteMemory& mem) {
    if (loc.minorFromName < 0 || loc.bssAddr == 0 || loc.bssSize == 0) return;
    if (loc.microKnown) return;
    // Py_GetVersion() fills a static buffer at start-up: "3.9.18 (main, ...".
    std::vector<char> bss(std::min<uint64_t>(loc.bssSize, 8u << 20));
    const size_t got = mem.readPartial(loc.bssAddr, bss.data(), bss.size());
    const std::string prefix =
        PythonVersion{3, static_cast<uint8_t>(loc.minorFromName)}.majorMinor() + ".";
    const std::string_view hay(bss.data(), got);
    for (size_t at = hay.find(prefix); at != std::string_view::npos;
         at = hay.find(prefix, at + 1)) {
        const size_t start = at + prefix.size();
        size_t i = start;
        while (i < hay.size() && i - start < 4 && hay[i] >= '0' && hay[i] <= '9')
            ++i;
        const auto micro = parseVersionPart(hay.substr(start, i - start));
        if (!micro || i + 1 >= hay.size()) continue;
        if (hay[i] == '+') ++i;
        if (hay[i] != ' ' || hay[i + 1] != '(') continue;
        loc.versionHex =
            0x030000f0u | (uint32_t(loc.minorFromName) << 16) | (uint32_t(*micro) << 8);
        loc.microKnown = true;
        return;
    }
}

Result<PythonLayout> resolveLayout(const RuntimeLocation& loc, RemoteMemory& mem) {
    const int minor = static_cast<int>((loc.versionHex >> 16) & 0xff);
    if (loc.versionHex == 0)
        return makeError(ErrorKind::UnsupportedVersion,
                         "cannot tell which Python version " + loc.elfPath +
                             " is (no Py_Version symbol and no version in its name)");
    if (minor < 13) return builtinLayout(loc.versionHex);
    std::vector<uint8_t> table(kMaxDebugOffsetsSize);
    const size_t got = mem.readPartial(loc.runtimeAddr, table.data(), table.size());
    if (got < 24) {
        const int err = mem.lastErrno();
        return makeError((err == ESRCH || err == ESTALE) ? ErrorKind::ProcessEnded
                                                         : ErrorKind::PermissionDenied,
                         "cannot read the Python runtime of process " + std::to_string(mem.pid()) +
                             ": " + explainAccessFailure(mem.pid(), err));
    }
    table.resize(got);
    return layoutFromDebugOffsets(table, loc.versionHex);
}

} // namespace gilscope::remote
