target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/live_timeline.cpp
    ${CMAKE_CURRENT_LIST_DIR}/process_list_diff.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recording_copy.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recording_session.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recording_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/save_bin_copy.cpp
    ${CMAKE_CURRENT_LIST_DIR}/thread_names.cpp
)
