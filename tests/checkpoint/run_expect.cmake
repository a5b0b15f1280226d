# Runs a command and checks both its exit status and its output, which PASS_REGULAR_EXPRESSION alone
# cannot do (it ignores the exit code).
#   -DCMD=<program|arg|arg...>  command, arguments separated by '|'
#   -DEXPECT_FAIL=ON|OFF        whether a nonzero exit status is required
#   -DREGEX=<regex>             must match stdout+stderr
if("${REGEX}" STREQUAL "")
  message(FATAL_ERROR "empty REGEX: it matches any output, so the output check would test nothing")
endif()
string(REPLACE "|" ";" _cmd "${CMD}")
execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
set(_all "${_out}${_err}")
if(EXPECT_FAIL AND "${_rc}" STREQUAL "0")
  message(FATAL_ERROR "expected a nonzero exit status, got 0. Output:\n${_all}")
elseif(NOT EXPECT_FAIL AND NOT "${_rc}" STREQUAL "0")
  message(FATAL_ERROR "expected exit status 0, got ${_rc}. Output:\n${_all}")
endif()
# The sanitize build (tests/sanitize.sh): a memory error or UB on the way to an expected failure exits
# nonzero too, so its report is looked for explicitly.
if(_all MATCHES "ERROR: (Address|Leak)Sanitizer|runtime error: ")
  message(FATAL_ERROR "sanitizer report (exit status ${_rc}). Output:\n${_all}")
endif()
if(NOT _all MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match /${REGEX}/ (exit status ${_rc}). Output:\n${_all}")
endif()
message(STATUS "exit status ${_rc} as expected, output matches /${REGEX}/")
