target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/attach_permission.cpp
    ${CMAKE_CURRENT_LIST_DIR}/builtin_layouts.cpp
    ${CMAKE_CURRENT_LIST_DIR}/code_cache.cpp
    ${CMAKE_CURRENT_LIST_DIR}/debug_offsets_layout.cpp
    ${CMAKE_CURRENT_LIST_DIR}/elf_image.cpp
    ${CMAKE_CURRENT_LIST_DIR}/frame_walker.cpp
    ${CMAKE_CURRENT_LIST_DIR}/line_table.cpp
    ${CMAKE_CURRENT_LIST_DIR}/live_process_reader.cpp
    ${CMAKE_CURRENT_LIST_DIR}/live_stack_source.cpp
    ${CMAKE_CURRENT_LIST_DIR}/proc_files.cpp
    ${CMAKE_CURRENT_LIST_DIR}/process_scanner.cpp
    ${CMAKE_CURRENT_LIST_DIR}/remote_memory.cpp
    ${CMAKE_CURRENT_LIST_DIR}/remote_objects.cpp
    ${CMAKE_CURRENT_LIST_DIR}/runtime_locator.cpp
    ${CMAKE_CURRENT_LIST_DIR}/task_file_cache.cpp
    ${CMAKE_CURRENT_LIST_DIR}/thread_state_probe.cpp
)
