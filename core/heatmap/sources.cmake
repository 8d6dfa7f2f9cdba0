target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/source_text.cpp
    ${CMAKE_CURRENT_LIST_DIR}/heatmap_html.cpp
    ${CMAKE_CURRENT_LIST_DIR}/heatmap_writer.cpp
)
