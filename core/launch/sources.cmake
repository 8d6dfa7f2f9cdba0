target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/gated_child.cpp
    ${CMAKE_CURRENT_LIST_DIR}/startup_hook.cpp
)
