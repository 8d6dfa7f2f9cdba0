target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/counters_json.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_filter.cpp
    ${CMAKE_CURRENT_LIST_DIR}/stack_interner.cpp
    ${CMAKE_CURRENT_LIST_DIR}/track_columns.cpp
    ${CMAKE_CURRENT_LIST_DIR}/sample_store.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_model.cpp
    ${CMAKE_CURRENT_LIST_DIR}/call_nodes.cpp
    ${CMAKE_CURRENT_LIST_DIR}/call_tree.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_views.cpp
    ${CMAKE_CURRENT_LIST_DIR}/call_transforms.cpp
    ${CMAKE_CURRENT_LIST_DIR}/line_heat.cpp
    ${CMAKE_CURRENT_LIST_DIR}/stack_chart.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_report.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profile_diff.cpp
    ${CMAKE_CURRENT_LIST_DIR}/state_filter_sink.cpp
    ${CMAKE_CURRENT_LIST_DIR}/module_color.cpp
)
