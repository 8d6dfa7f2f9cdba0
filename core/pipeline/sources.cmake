# One place that builds the readers a recording samples (live, --blocking, --native-stacks).
target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/stack_pipeline.cpp
)
