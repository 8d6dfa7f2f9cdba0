# Writes gilscope.1 with help2man from the built gilscope's own --help and --version, and
# every command's --help as a section of its own, so the man page says what the program
# says. Run by the `man_page` target: cmake -DGILSCOPE=... -DHELP2MAN=... -DOUT=... -P.
execute_process(COMMAND "${GILSCOPE}" --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gilscope --help failed (${rc})")
endif()
string(REGEX MATCHALL "\n  [a-z][a-z-]*  " lines "${top}")
set(include "[NAME]\ngilscope \\- a sampling profiler for running Python programs (3.8-3.15)\n")
string(APPEND include "\n[COMMANDS]\n")
foreach(line IN LISTS lines)
    string(STRIP "${line}" command)
    execute_process(COMMAND "${GILSCOPE}" ${command} --help OUTPUT_VARIABLE text)
    # Qt's "Usage:" names the program as it was started: here, the build's path.
    string(REPLACE "Usage: ${GILSCOPE} " "Usage: gilscope ${command} " text "${text}")
    # As roff: a backslash is \e, a dash \- (so that an option pasted from the page is
    # ASCII), and a line may not start with a dot or a quote.
    string(REPLACE "\\" "\\e" text "${text}")
    string(REPLACE "-" "\\-" text "${text}")
    string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" text "\n${text}")
    string(APPEND include ".SS ${command}\n.nf${text}\n.fi\n")
endforeach()
string(APPEND include "\n[SEE ALSO]\nThe reference, with an example per topic, is in the docs/ folder of gilscope's "
    "source (cli.md, control-socket.md, window.md, limits.md).\n")
file(WRITE "${OUT}.h2m" "${include}")
execute_process(COMMAND "${HELP2MAN}" --no-info --section=1 --include "${OUT}.h2m"
                        --output "${OUT}" "${GILSCOPE}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man failed (${rc})")
endif()
