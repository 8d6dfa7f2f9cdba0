# The window's side of a recording: the live session (sampler, sinks, .bin copy), an opened
# recording file, and the timeline model the tracks draw from.
target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/live_timeline.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recording_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recording_session.cpp
)
