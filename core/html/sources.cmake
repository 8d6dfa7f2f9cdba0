target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/json_text.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flame_data.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flame_page.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flame_recorder.cpp
    ${CMAKE_CURRENT_LIST_DIR}/html_escape.cpp
)

# The page's template, style and script, embedded at build time (core/html/assets.h).
foreach(asset flamegraph.html flamegraph.css flamegraph_text.js flamegraph.js flamegraph_probe.js)
    string(REGEX REPLACE "[^A-Za-z0-9]" "_" symbol "${asset}")
    set(generated ${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp)
    add_custom_command(OUTPUT ${generated}
        COMMAND ${CMAKE_COMMAND} -DINPUT=${PROJECT_SOURCE_DIR}/resources/html/${asset}
                -DOUTPUT=${generated} -DNAME=${symbol} -P ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
        DEPENDS ${PROJECT_SOURCE_DIR}/resources/html/${asset} ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
        COMMENT "Embedding resources/html/${asset}" VERBATIM)
    target_sources(gilscope_core PRIVATE ${generated})
endforeach()
