#include "core/gecko/gecko_thread.h"

#include <string>

namespace gilscope {

const MarkerKindInfo kMarkerKinds[kIntervalKinds] = {
    {"Has GIL", "HasGIL", 4},
    {"No GIL", "NoGIL", 4},
    {"On CPU", "OnCPU", 5},
    {"Off CPU", "OffCPU", 5},
    {"Python Code", "PythonCode", 6},
    {"Native Code", "NativeCode", 6},
    {"Waiting for GIL", "WaitingforGIL", 4},
    {"GC Collecting", "GCCollecting", 3},
    {"Has Exception", "HasException", 8},
    {"No Exception", "NoException", 8},
};

namespace {
std::filesystem::path columnPath(const std::filesystem::path& dir, uint64_t tid, const char* name) {
    return dir / ("thread-" + std::to_string(tid) + "-" + name + ".bin");
}
} // namespace

GeckoThread::GeckoThread(const std::filesystem::path& dir, uint64_t tid_, bool isMain,
                         size_t bufferBytes)
    : tid(tid_), isMainThread(isMain),
      samplesStack(columnPath(dir, tid_, "samples-stack"), sizeof(int32_t), bufferBytes),
      samplesTime(columnPath(dir, tid_, "samples-time"), sizeof(double), bufferBytes),
      markersName(columnPath(dir, tid_, "markers-name"), sizeof(uint32_t), bufferBytes),
      markersStart(columnPath(dir, tid_, "markers-start-time"), sizeof(double), bufferBytes),
      markersEnd(columnPath(dir, tid_, "markers-end-time"), sizeof(double), bufferBytes),
      markersPhase(columnPath(dir, tid_, "markers-phase"), sizeof(uint8_t), bufferBytes),
      markersCategory(columnPath(dir, tid_, "markers-category"), sizeof(uint8_t), bufferBytes),
      markersData(columnPath(dir, tid_, "markers-data"), sizeof(MarkerRecord), bufferBytes) {
}

Status GeckoThread::appendMarker(uint32_t name, double start, double end, uint8_t category,
                                 const MarkerRecord& data) {
    const uint8_t phase = 1; // every Gecko marker here is an interval marker
    for (Status s :
         {markersName.append(name), markersStart.append(start), markersEnd.append(end),
          markersPhase.append(phase), markersCategory.append(category), markersData.append(data)})
        if (!s.ok()) return s;
    return {};
}

Status GeckoThread::flushAll() {
    for (SpillColumn* c : {&samplesStack, &samplesTime, &markersName, &markersStart, &markersEnd,
                           &markersPhase, &markersCategory, &markersData}) {
        Status s = c->flush();
        if (!s.ok()) return s;
    }
    return {};
}

} // namespace gilscope
