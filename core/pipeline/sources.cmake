# One place that builds the readers a recording samples (live, --blocking, --native-stacks),
# and the recording over them that every front end runs.
target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/stack_pipeline.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_recording.cpp
)
