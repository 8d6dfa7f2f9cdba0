# pprof output and Pyroscope push: profile.proto, push.proto and types.proto compiled by
# Debian's protoc, gzip by zlib. The generated
# code (build/<preset>/generated/core/{pprof,push}/*.pb.*) is built apart, without -Werror
# (it is not ours to fix); only the sources that use it see it, as system headers,
# so the rest of the tree builds with the flags it had.
set(GILSCOPE_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
file(MAKE_DIRECTORY ${GILSCOPE_GENERATED_DIR}/core)
# push.proto and types.proto (core/push) are Pyroscope's push API, in the same library.
add_library(gilscope_proto STATIC ${CMAKE_CURRENT_LIST_DIR}/profile.proto
    ${CMAKE_CURRENT_LIST_DIR}/../push/types.proto ${CMAKE_CURRENT_LIST_DIR}/../push/push.proto)
protobuf_generate(TARGET gilscope_proto LANGUAGE cpp
    IMPORT_DIRS ${CMAKE_CURRENT_SOURCE_DIR}
    PROTOC_OUT_DIR ${GILSCOPE_GENERATED_DIR}/core)
target_compile_options(gilscope_proto PRIVATE -w)
target_include_directories(gilscope_proto PRIVATE ${GILSCOPE_GENERATED_DIR}/core)
target_link_libraries(gilscope_proto PUBLIC protobuf::libprotobuf)

target_link_libraries(gilscope_core PRIVATE gilscope_proto ZLIB::ZLIB)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/pprof_profile.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../push/push_request.cpp PROPERTIES
    COMPILE_OPTIONS "-isystem;${GILSCOPE_GENERATED_DIR};-isystem;${GILSCOPE_GENERATED_DIR}/core"
    OBJECT_DEPENDS "${GILSCOPE_GENERATED_DIR}/core/pprof/profile.pb.h;${GILSCOPE_GENERATED_DIR}/core/push/push.pb.h")
target_sources(gilscope_core PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/thread_state.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pprof_profile.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pprof_sink.cpp
    ${CMAKE_CURRENT_LIST_DIR}/counter_comments.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gzip.cpp
)
