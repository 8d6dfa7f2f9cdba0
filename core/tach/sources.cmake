target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/recording_copy.cpp
    ${CMAKE_CURRENT_LIST_DIR}/save_bin_copy.cpp
    ${CMAKE_CURRENT_LIST_DIR}/file_io.cpp
    ${CMAKE_CURRENT_LIST_DIR}/byte_window.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_layout.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_tables.cpp
    ${CMAKE_CURRENT_LIST_DIR}/record_replayer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_reader.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_info_json.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_describe.cpp
    ${CMAKE_CURRENT_LIST_DIR}/record_stream.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_writer_finalize.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tach_writer_checkpoint.cpp
    ${CMAKE_CURRENT_LIST_DIR}/thread_names_file.cpp
)
