#include "core/jsonl/jsonl_writer.h"

#include "core/util/atomic_file.h"

#include <cstdio>
#include <random>

namespace gilscope::jsonl {

namespace {

constexpr size_t kChunk = 256; // _CHUNK_SIZE

const char* modeName(int mode) {
    static const char* const names[] = {"wall", "cpu", "gil", "all", "exception"};
    return mode >= 0 && mode <= 4 ? names[mode] : nullptr;
}

std::string randomRunId() { // uuid.uuid4().hex
    std::random_device rd;
    uint8_t b[16];
    for (int i = 0; i < 16; i += 4) {
        const uint32_t v = rd();
        for (int k = 0; k < 4; ++k)
            b[i + k] = static_cast<uint8_t>(v >> (8 * k));
    }
    b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
    std::string hex;
    char buf[3];
    for (uint8_t x : b) {
        std::snprintf(buf, sizeof buf, "%02x", x);
        hex += buf;
    }
    return hex;
}

// Next code point of UTF-8 text; an invalid byte reads as U+FFFD.
uint32_t nextCodePoint(const std::string& s, size_t& i) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
        ++i;
        return 0xfffd;
    }
    uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (int k = 1; k < len; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xc0) != 0x80) {
            ++i;
            return 0xfffd;
        }
        cp = (cp << 6) | (cc & 0x3f);
    }
    i += len;
    return cp;
}

} // namespace

std::string pythonJsonString(const std::string& utf8) {
    std::string out = "\"";
    char buf[16];
    for (size_t i = 0; i < utf8.size();) {
        const uint32_t cp = nextCodePoint(utf8, i);
        switch (cp) {
        case '"':
            out += "\\\"";
            continue;
        case '\\':
            out += "\\\\";
            continue;
        case '\b':
            out += "\\b";
            continue;
        case '\f':
            out += "\\f";
            continue;
        case '\n':
            out += "\\n";
            continue;
        case '\r':
            out += "\\r";
            continue;
        case '\t':
            out += "\\t";
            continue;
        default:
            break;
        }
        if (cp >= 0x20 && cp <= 0x7e) {
            out += static_cast<char>(cp);
        } else if (cp < 0x10000) {
            std::snprintf(buf, sizeof buf, "\\u%04x", cp);
            out += buf;
        } else {
            const uint32_t v = cp - 0x10000;
            std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xd800 + (v >> 10),
                          0xdc00 + (v & 0x3ff));
            out += buf;
        }
    }
    return out + "\"";
}

JsonlWriter::JsonlWriter(std::optional<int> mode, std::string runId)
    : mode_(mode), runId_(runId.empty() ? randomRunId() : std::move(runId)) {
}

void JsonlWriter::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    registry_ = &registry;
    if (info.sampleIntervalUs) intervalUs_ = info.sampleIntervalUs;
}

uint32_t JsonlWriter::intern(StringId registryString) {
    auto [it, inserted] =
        stringOf_.try_emplace(registryString, static_cast<uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(registryString);
    return it->second;
}

size_t JsonlWriter::frameFor(FrameId id) {
    if (frameOf_.contains(id) && frameOf_[id]) return frameOf_[id] - 1;
    const FrameInfo& f = registry_->frame(id);
    Frame fr;
    fr.func = intern(f.funcname); // funcname first, as CPython interns them
    fr.path = intern(f.filename);
    if (f.line != kNoLocation) { // else normalize_location(None): (0, 0, -1, -1)
        fr.line = f.line;
        fr.endLine = f.endLine;
        fr.col = f.column;
        fr.endCol = f.endColumn;
    }
    // CPython's frame_key: the exported fields, absent ones as None.
    std::string key = std::to_string(fr.path) + ',' + std::to_string(fr.func) + ',' +
                      std::to_string(fr.line) + ',' +
                      (fr.endLine > 0 ? std::to_string(fr.endLine) : "-") + ',' +
                      (fr.col >= 0 ? std::to_string(fr.col) : "-") + ',' +
                      (fr.endCol >= 0 ? std::to_string(fr.endCol) : "-");
    auto [it, inserted] = frameKeys_.try_emplace(key, frames_.size());
    if (inserted) frames_.push_back(fr);
    frameOf_.cover(id, 0) = it->second + 1;
    return it->second;
}

void JsonlWriter::addBatch(const SampleBatch& batch) {
    if (!registry_) return;
    // filter_internal_frames(): the profiler's own bootstrap frames; an empty stack
    // is not a sample.
    constexpr std::string_view internal = "_sync_coordinator.py";
    const auto isInternal = [&](FrameId id) {
        const std::string& file = registry_->string(registry_->frame(id).filename);
        return file.size() >= internal.size() &&
               file.compare(file.size() - internal.size(), internal.size(), internal) == 0;
    };
    const uint64_t weight = batch.timestampsUs.size();
    bool leaf = true;
    for (FrameId id : batch.frames) {
        if (isInternal(id)) continue;
        if (leaf) {
            samplesTotal_ += weight;
            ++stackNo_;
        }
        Frame& f = frames_[frameFor(id)];
        if (leaf) f.self += weight;
        if (f.seen != stackNo_) { // recursion counts once per sample
            f.seen = stackNo_;
            f.cumulative += weight;
        }
        leaf = false;
    }
}

std::string JsonlWriter::text() const {
    const std::string common = ",\"v\":0,\"run_id\":\"" + runId_ + "\"";
    std::string out =
        "{\"type\":\"meta\"" + common + ",\"sample_interval_usec\":" + std::to_string(intervalUs_);
    if (mode_) {
        const char* name = modeName(*mode_);
        out += ",\"mode\":" + pythonJsonString(name ? name : std::to_string(*mode_));
    }
    out += "}\n";
    // Chunks of up to 256 entries: {"type":..., <header fields>, "<field>":[...]}.
    const auto chunked = [&](const std::string& head, const char* field, size_t count,
                             const auto& entry) {
        for (size_t start = 0; start < count; start += kChunk) {
            out += head + ",\"" + field + "\":[";
            for (size_t i = start; i < count && i < start + kChunk; ++i) {
                if (i > start) out += ',';
                out += entry(i);
            }
            out += "]}\n";
        }
    };
    chunked("{\"type\":\"string_table\"" + common, "strings", strings_.size(), [&](size_t i) {
        return "{\"str_id\":" + std::to_string(i) +
               ",\"value\":" + pythonJsonString(registry_->string(strings_[i])) + "}";
    });
    chunked("{\"type\":\"frame_table\"" + common, "frames", frames_.size(), [&](size_t i) {
        const Frame& f = frames_[i];
        std::string e =
            "{\"frame_id\":" + std::to_string(i) + ",\"path_str_id\":" + std::to_string(f.path) +
            ",\"func_str_id\":" + std::to_string(f.func) + ",\"line\":" + std::to_string(f.line);
        if (f.endLine > 0) e += ",\"end_line\":" + std::to_string(f.endLine);
        if (f.col >= 0) e += ",\"col\":" + std::to_string(f.col);
        if (f.endCol >= 0) e += ",\"end_col\":" + std::to_string(f.endCol);
        return e + "}";
    });
    chunked("{\"type\":\"agg\"" + common +
                ",\"kind\":\"frame\",\"scope\":\"final\",\"samples_total\":" +
                std::to_string(samplesTotal_),
            "entries", frames_.size(), [&](size_t i) {
                return "{\"frame_id\":" + std::to_string(i) +
                       ",\"self\":" + std::to_string(frames_[i].self) +
                       ",\"cumulative\":" + std::to_string(frames_[i].cumulative) + "}";
            });
    out += "{\"type\":\"end\"" + common + ",\"samples_total\":" + std::to_string(samplesTotal_) +
           "}\n";
    return out;
}

Status JsonlWriter::writeTo(const std::filesystem::path& path) const {
    auto file = AtomicFile::create(path);
    if (!file) return file.error();
    return writeTo(std::move(*file));
}

Status JsonlWriter::writeTo(AtomicFile file) const {
    if (Status s = file.write(text()); !s) return s;
    return file.commit();
}

} // namespace gilscope::jsonl
