# Runs a command and checks its exit code (CTest's WILL_FAIL only knows
# "non-zero"; collcheck's exit codes mean different things: 1 violated,
# 2 bad usage, 77 skipped).
#   cmake -DEXPECT=<code> -DCMD=<;-list> [-DMATCH=<regex>] -P expect_exit.cmake
if(NOT DEFINED EXPECT OR NOT DEFINED CMD)
  message(FATAL_ERROR "expect_exit.cmake needs -DEXPECT=<code> and -DCMD=<command;args>")
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${rc}" STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'")
endif()
