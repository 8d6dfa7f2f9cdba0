target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/gecko_collector.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gecko_counters.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gecko_ingest.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gecko_markers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gecko_strings.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gecko_thread.cpp
    ${CMAKE_CURRENT_LIST_DIR}/json_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/opcode_names.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_streamer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_streamer_meta.cpp
    ${CMAKE_CURRENT_LIST_DIR}/spill_column.cpp
)
