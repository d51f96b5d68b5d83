# cmake -DCOMPILER=... -DFLAGS=... -DSOURCE=... -DEXPECT=regex -P expect_compile_error.cmake
# Compiles SOURCE (syntax only) and succeeds when the compiler rejects it with
# a diagnostic matching EXPECT; EXPECT "" means the source must compile.
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND "${COMPILER}" ${flags} -fsyntax-only "${SOURCE}"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT STREQUAL "")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "expected to compile, but:\n${err}")
  endif()
  return()
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "expected a compile error matching '${EXPECT}', but it compiled")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "the compile error does not match '${EXPECT}':\n${err}")
endif()
string(REGEX MATCH "[^\n]*${EXPECT}[^\n]*" line "${err}")
message(STATUS "rejected as expected: ${line}")
