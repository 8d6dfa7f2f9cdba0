target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/jsonl_writer.cpp
)
