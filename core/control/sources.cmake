target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/control_commands.cpp
    ${CMAKE_CURRENT_LIST_DIR}/control_server.cpp
)
