target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/attached_process.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pid_fd.cpp
    ${CMAKE_CURRENT_LIST_DIR}/proc_dir.cpp
    ${CMAKE_CURRENT_LIST_DIR}/process_credentials.cpp
    ${CMAKE_CURRENT_LIST_DIR}/process_maps.cpp
    ${CMAKE_CURRENT_LIST_DIR}/target_files.cpp
)
