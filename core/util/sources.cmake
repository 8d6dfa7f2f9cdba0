target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/unique_fd.cpp
    ${CMAKE_CURRENT_LIST_DIR}/temp_dir.cpp
    ${CMAKE_CURRENT_LIST_DIR}/atomic_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/atomic_folder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/output_target.cpp
    ${CMAKE_CURRENT_LIST_DIR}/proc_stat.cpp
    ${CMAKE_CURRENT_LIST_DIR}/python_float.cpp
    ${CMAKE_CURRENT_LIST_DIR}/python_repr.cpp
    ${CMAKE_CURRENT_LIST_DIR}/python_version.cpp
    ${CMAKE_CURRENT_LIST_DIR}/utf8.cpp
    ${CMAKE_CURRENT_LIST_DIR}/write_all.cpp
)
