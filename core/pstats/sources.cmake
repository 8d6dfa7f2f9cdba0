target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/marshal_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pstats_collector.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pstats_table.cpp
)
