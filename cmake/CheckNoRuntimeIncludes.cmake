# Fails when a source of the CLI (src/cli) or the bench (bench/harness)
# includes a runtime/ header: the tools use the public API (issue 19,
# item 6). REMAINING lists the files not moved over yet; each of them must
# still include one (so the list only shrinks), and no other file may. It is
# empty: no CLI or bench source includes a runtime/ header.
#   cmake -DROOT=<source dir> -P CheckNoRuntimeIncludes.cmake
set(REMAINING)

file(GLOB_RECURSE sources RELATIVE "${ROOT}"
  "${ROOT}/src/cli/*.h" "${ROOT}/src/cli/*.cpp" "${ROOT}/bench/harness/*.h" "${ROOT}/bench/harness/*.cpp")
set(problems)
foreach(source ${sources})
  file(STRINGS "${ROOT}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]runtime/")
  list(FIND REMAINING "${source}" listed)
  if(includes AND listed EQUAL -1)
    list(JOIN includes "; " text)
    list(APPEND problems "${source} includes a runtime header (${text}); use the public API (include/wasmgpu/)")
  elseif(NOT includes AND NOT listed EQUAL -1)
    list(APPEND problems "${source} no longer includes a runtime header: remove it from REMAINING in cmake/CheckNoRuntimeIncludes.cmake")
  endif()
endforeach()
foreach(source ${REMAINING})
  if(NOT EXISTS "${ROOT}/${source}")
    list(APPEND problems "${source} (in REMAINING) does not exist")
  endif()
endforeach()
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "the tools' runtime includes:\n  ${text}")
endif()
list(LENGTH sources count)
message(STATUS "${count} CLI and bench sources checked")
