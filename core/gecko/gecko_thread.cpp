#include "core/gecko/gecko_thread.h"

#include "core/gecko/gecko_strings.h"

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
    {"Waiting on a lock", "WaitingonLock", kLockCategory},
    {"Waiting on I/O", "WaitingonIO", kIoCategory},
    {"Polling", "Polling", kIdleCategory},
    {"Sleeping", "Sleeping", kSleepCategory},
    {"Running Python", "RunningPython", 4},
    {"Detached", "Detached", 4},
    {"Stopped by stop-the-world", "StoppedByStopTheWorld", 4},
};

GeckoThread::GeckoThread(SpillStore* store, uint64_t tid_, bool isMain, size_t bufferBytes)
    : tid(tid_), isMainThread(isMain), samplesStack(store, sizeof(int32_t), bufferBytes),
      samplesTime(store, sizeof(double), bufferBytes),
      markersName(store, sizeof(uint32_t), bufferBytes),
      markersStart(store, sizeof(double), bufferBytes),
      markersEnd(store, sizeof(double), bufferBytes),
      markersPhase(store, sizeof(uint8_t), bufferBytes),
      markersCategory(store, sizeof(uint8_t), bufferBytes),
      markersData(store, sizeof(MarkerRecord), bufferBytes) {
}

Status GeckoThread::appendMarker(uint32_t name, double start, double end, uint8_t category,
                                 const MarkerRecord& data) {
    const uint8_t phase = 1; // every Gecko marker here is an interval marker
    // Every column gets its record even when one fails: the counts must stay equal.
    Status first;
    for (Status s :
         {markersName.append(name), markersStart.append(start), markersEnd.append(end),
          markersPhase.append(phase), markersCategory.append(category), markersData.append(data)})
        if (!s.ok() && first.ok()) first = s;
    return first;
}

} // namespace gilscope
