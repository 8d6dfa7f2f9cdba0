target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/counter_poller.cpp
    ${CMAKE_CURRENT_LIST_DIR}/proc_counters.cpp
)
