target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/capture_rules.cpp
    ${CMAKE_CURRENT_LIST_DIR}/frame_registry.cpp
    ${CMAKE_CURRENT_LIST_DIR}/process_counters.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sample_label.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tee_sink.cpp
    ${CMAKE_CURRENT_LIST_DIR}/torn_reads.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wait_reason.cpp
)
