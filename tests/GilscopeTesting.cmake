# gilscope_add_test(NAME SOURCES a.cpp b.cpp [LABELS l1 l2] [TIMEOUT s] [LIBS ...])
# Label "unit": the ASan/UBSan and TSan runs take it; "tsan": the TSan run takes it too
# (GUI suites whose threads record and export).
# Builds a QtTest executable linked to core and the test support library, and
# registers it with CTest.
function(gilscope_add_test name)
    cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LABELS;LIBS" ${ARGN})
    add_executable(${name} ${T_SOURCES})
    target_link_libraries(${name} PRIVATE gilscope_core gilscope_test_support Qt6::Test ${T_LIBS})
    add_test(NAME ${name} COMMAND ${name})
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 300)
    endif()
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}"
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;GILSCOPE_BIN=$<TARGET_FILE:gilscope>")
    if("unit" IN_LIST T_LABELS)
        add_dependencies(unit_tests ${name})
    endif()
    if("unit" IN_LIST T_LABELS OR "tsan" IN_LIST T_LABELS)
        add_dependencies(tsan_tests ${name})
    endif()
endfunction()
