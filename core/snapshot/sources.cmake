target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/process_snapshot.cpp
    ${CMAKE_CURRENT_LIST_DIR}/snapshot_format.cpp
    ${CMAKE_CURRENT_LIST_DIR}/source_lines.cpp
)
