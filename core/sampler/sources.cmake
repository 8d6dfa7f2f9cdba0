target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/sampler_clock.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sampler_stats_publisher.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sampler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sampler_tick.cpp
    ${CMAKE_CURRENT_LIST_DIR}/producer_errands.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sampler_group.cpp
    ${CMAKE_CURRENT_LIST_DIR}/rate_parser.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recording.cpp
    ${CMAKE_CURRENT_LIST_DIR}/thread_scheduling.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tick_waiter.cpp
)
