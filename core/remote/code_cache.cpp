#include "core/remote/code_cache.h"

#include "core/remote/struct_view.h"

#include <algorithm>

namespace gilscope::remote {

namespace {

constexpr size_t kMaxLineTable = 1 << 20;
constexpr size_t kMaxBytecode = 1 << 22;

template <typename T>
T field(const std::vector<uint8_t>& buf, uint64_t off) {
    return StructView(buf).field<T>(off);
}

} // namespace

CodeCache::CodeCache(ProcessMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
                     uint64_t codeTypeAddr, bool wantBytecode)
    : mem_(mem), layout_(layout), registry_(registry), objects_(mem, layout),
      codeTypeAddr_(codeTypeAddr), wantBytecode_(wantBytecode), format_(lineTableFormat(layout)) {
}

std::optional<StringId> CodeCache::string(uint64_t addr) {
    // Strings are only cached for the duration of one fill: a string's address may be
    // reused after it is freed, but the code object keeps its own strings alive.
    if (auto it = strings_.find(addr); it != strings_.end()) return it->second;
    // Names and paths of any length: one past RemoteObjects::kMaxStringChars is cut there.
    auto s = objects_.readString(addr);
    if (!s) return std::nullopt;
    const StringId id = registry_.internString(*s);
    strings_.emplace(addr, id);
    return id;
}

void CodeCache::identify(const std::vector<uint8_t>& code, uint64_t (&id)[4]) const {
    id[0] = field<uint64_t>(code, layout_.coFilename);
    id[1] = field<uint64_t>(code, layout_.coName);
    id[2] = field<uint64_t>(code, layout_.coCode != kAbsent ? layout_.coCode : layout_.coLinetable);
    id[3] = static_cast<uint64_t>(field<int32_t>(code, layout_.coFirstlineno));
}

bool CodeCache::fill(uint64_t codeAddr, CodeInfo& out) {
    std::vector<uint8_t> code(layout_.coSize);
    if (!mem_.read(codeAddr, code.data(), code.size())) return false;
    return fillFrom(codeAddr, code, out);
}

bool CodeCache::fillFrom(uint64_t codeAddr, const std::vector<uint8_t>& code, CodeInfo& out) {
    identify(code, out.identity);
    if (codeTypeAddr_ && field<uint64_t>(code, layout_.obType) != codeTypeAddr_) return false;
    strings_.clear();
    auto filename = string(field<uint64_t>(code, layout_.coFilename));
    const uint64_t nameAddr = layout_.coQualname != kAbsent
                                  ? field<uint64_t>(code, layout_.coQualname)
                                  : field<uint64_t>(code, layout_.coName);
    auto name = string(nameAddr);
    if (!filename || !name) return false;
    auto table = objects_.readBytes(field<uint64_t>(code, layout_.coLinetable), kMaxLineTable);
    if (!table) return false;
    out.filename = *filename;
    out.funcname = *name;
    const std::string& file = registry_.string(*filename);
    out.trampoline = file == "<shim>";
    out.interpreterShim = out.trampoline || file == "__init__";
    // CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR
    if (layout_.coFlags != kAbsent)
        out.resumable =
            (field<int32_t>(code, layout_.coFlags) & (0x20 | 0x80 | 0x100 | 0x200)) != 0;
    out.firstLine = field<int32_t>(code, layout_.coFirstlineno);
    out.lineTable = std::move(*table);
    if (layout_.coCodeAdaptive != kAbsent) {
        const int64_t units = field<int64_t>(code, layout_.varSize); // Py_SIZE = code units
        if (units <= 0 || static_cast<uint64_t>(units) * 2 > kMaxBytecode) return false;
        out.bytecodeAddr = codeAddr + layout_.coCodeAdaptive;
        out.bytecodeSize = static_cast<uint64_t>(units) * 2;
    } else {
        // <= 3.10: co_code is a bytes object; only its size and data address matter.
        const uint64_t bytesAddr = field<uint64_t>(code, layout_.coCode);
        int64_t size = 0;
        if (!mem_.readValue(bytesAddr + layout_.bytesSize, size) || size <= 0 ||
            static_cast<uint64_t>(size) > kMaxBytecode)
            return false;
        out.bytecodeAddr = bytesAddr + layout_.bytesData;
        out.bytecodeSize = static_cast<uint64_t>(size);
    }
    if (wantBytecode_) {
        out.bytecode.resize(out.bytecodeSize);
        if (!mem_.read(out.bytecodeAddr, out.bytecode.data(), out.bytecode.size())) return false;
    }
    return true;
}

const CodeInfo* CodeCache::lookup(uint64_t codeAddr, uint64_t instrAddr, uint64_t globals) {
    if (!plausibleAddress(codeAddr)) return nullptr;
    auto it = codes_.find(codeAddr);
    if (it != codes_.end()) {
        CodeInfo& c = it->second;
        const bool inside = instrAddr == 0 || (instrAddr >= c.bytecodeAddr - 2 &&
                                               instrAddr < c.bytecodeAddr + c.bytecodeSize);
        if (inside && globals == c.globals && ++c.uses < kRevalidateEvery) return &c;
        if (inside && stillSameCode(codeAddr, c)) { // exec() with other globals, or due
            c.globals = globals;
            c.uses = 0;
            return &c;
        }
        codes_.erase(it);
    }
    CodeInfo info;
    if (!fill(codeAddr, info)) return nullptr;
    info.globals = globals;
    return insert(codeAddr, std::move(info));
}

bool CodeCache::stillSameCode(uint64_t codeAddr, const CodeInfo& c) {
    scratch_.resize(layout_.coSize);
    if (!mem_.read(codeAddr, scratch_.data(), scratch_.size())) return false;
    uint64_t id[4];
    identify(scratch_, id);
    return std::equal(std::begin(id), std::end(id), std::begin(c.identity)) &&
           (!codeTypeAddr_ || field<uint64_t>(scratch_, layout_.obType) == codeTypeAddr_);
}

const CodeInfo* CodeCache::lookupKnown(uint64_t codeAddr) {
    auto it = codes_.find(codeAddr);
    if (it == codes_.end() || ++it->second.uses >= kRevalidateEvery) return nullptr;
    return &it->second;
}

const CodeInfo* CodeCache::insert(uint64_t codeAddr, CodeInfo&& info) {
    if (codes_.size() > 100000) codes_.clear(); // bound memory on pathological targets
    return &codes_.insert_or_assign(codeAddr, std::move(info)).first->second;
}

const CodeInfo* CodeCache::lookupChecked(uint64_t codeAddr, std::span<const uint8_t> object) {
    if (!plausibleAddress(codeAddr) || object.size() < layout_.coSize) return nullptr;
    scratch_.assign(object.begin(), object.begin() + static_cast<ptrdiff_t>(layout_.coSize));
    if (auto it = codes_.find(codeAddr); it != codes_.end()) {
        uint64_t id[4];
        identify(scratch_, id);
        if (std::equal(std::begin(id), std::end(id), std::begin(it->second.identity)) &&
            (!codeTypeAddr_ || field<uint64_t>(scratch_, layout_.obType) == codeTypeAddr_)) {
            it->second.uses = 0; // checked just now
            return &it->second;
        }
        codes_.erase(it); // the address now holds another code object
    }
    CodeInfo info;
    if (!fillFrom(codeAddr, scratch_, info)) return nullptr;
    return insert(codeAddr, std::move(info));
}

SourceLocation CodeCache::location(const CodeInfo& info, int64_t byteOffset) {
    auto& c = const_cast<CodeInfo&>(info);
    if (c.lastOffset != byteOffset) {
        c.lastLocation = lookupLocation(format_, c.lineTable, c.firstLine, byteOffset);
        c.lastOffset = byteOffset;
    }
    return c.lastLocation;
}

} // namespace gilscope::remote
