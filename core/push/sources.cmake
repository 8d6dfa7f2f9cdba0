# Continuous push to Grafana Pyroscope (push.proto and types.proto are compiled with
# profile.proto, in core/pprof/sources.cmake). The HTTP transport is Qt's, in net/.
target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/push_labels.cpp
    ${CMAKE_CURRENT_LIST_DIR}/push_queue.cpp
    ${CMAKE_CURRENT_LIST_DIR}/push_request.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pusher.cpp
)
