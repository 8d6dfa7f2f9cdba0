target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/native_stack_source.cpp
    ${CMAKE_CURRENT_LIST_DIR}/native_symbols.cpp
    ${CMAKE_CURRENT_LIST_DIR}/native_unwinder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/perf_thread_events.cpp
    ${CMAKE_CURRENT_LIST_DIR}/python_rereads.cpp
    ${CMAKE_CURRENT_LIST_DIR}/stack_merge.cpp
    ${CMAKE_CURRENT_LIST_DIR}/unwind_memo.cpp
)
