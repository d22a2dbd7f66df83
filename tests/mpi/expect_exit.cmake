# Runs a command and checks its exit code (CTest's WILL_FAIL only knows
# "non-zero"; collcheck's exit codes mean different things: 1 violated,
# 2 bad usage, 77 skipped).
#   cmake -DEXPECT=<code>[,<code>...] -DCMD=<;-list> [-DMATCH=<regex>] [-DNOMATCH=<regex>] -P expect_exit.cmake
# NOMATCH: a regex no line of the output may match (a "holds" that must not be printed).
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
if(NOT DEFINED EXPECT OR NOT DEFINED CMD)
  message(FATAL_ERROR "expect_exit.cmake needs -DEXPECT=<code> and -DCMD=<command;args>")
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
string(REPLACE "," ";" expected_codes "${EXPECT}")  # EXPECT may list several: 3,9
if(NOT "${rc}" IN_LIST expected_codes)
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'")
endif()
if(DEFINED NOMATCH AND NOT "${NOMATCH}" STREQUAL "" AND "${out}${err}" MATCHES "${NOMATCH}")
  message(FATAL_ERROR "output matches '${NOMATCH}', which it must not")
endif()
