# The deprecated names' warnings (CTest: deprecated_names_warnings): SOURCE, a
# program written against names hookbus renamed (test/deprecated_names/),
# compiles with CXX under a strict user's warnings, and its only warnings are
# the deprecations its lines `// deprecated: OLD -> REPLACEMENT` announce: for
# each, a warning on a line that names OLD and says "is deprecated: use
# REPLACEMENT". That it also runs as it did is CTest deprecated_names_run.
#
#   cmake -DCXX=... -DSOURCE=... "-DFLAGS=..." -P deprecated_names_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required CXX SOURCE)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "deprecated_names_test.cmake: -D${required}=... is required")
  endif()
endforeach()

# What the program says it uses: OLD -> REPLACEMENT, one per line.
file(STRINGS ${SOURCE} announced REGEX "^// deprecated: .+ -> .+$")
if(NOT announced)
  message(FATAL_ERROR "${SOURCE} announces no deprecated name (lines '// deprecated: OLD -> REPLACEMENT')")
endif()

separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND ${CXX} -std=c++20 -Wall -Wextra -Wpedantic -Wdeprecated-declarations ${flags}
                        -fsyntax-only ${SOURCE}
                RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(diagnostics "${out}${err}")
if(NOT failed EQUAL 0)
  message(FATAL_ERROR "${SOURCE}, written against the old names, does not compile:\n${diagnostics}")
endif()

# One list element per line of the compiler's output (a ';' in it is not a separator).
string(REPLACE ";" "<semicolon>" diagnostics_lines "${diagnostics}")
string(REPLACE "\n" ";" diagnostics_lines "${diagnostics_lines}")
set(warnings "")
foreach(line IN LISTS diagnostics_lines)
  if(line MATCHES "warning: ")
    list(APPEND warnings "${line}")
  endif()
endforeach()

set(explained "")
foreach(announcement IN LISTS announced)
  string(REGEX REPLACE "^// deprecated: (.+) -> (.+)$" "\\1" old "${announcement}")
  string(REGEX REPLACE "^// deprecated: (.+) -> (.+)$" "\\2" replacement "${announcement}")
  set(found FALSE)
  foreach(warning IN LISTS warnings)
    string(FIND "${warning}" "${old}" names_old)
    string(FIND "${warning}" "is deprecated: use ${replacement}" names_replacement)
    if(NOT names_old EQUAL -1 AND NOT names_replacement EQUAL -1)
      set(found TRUE)
      list(APPEND explained "${warning}")
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "no warning says that ${old} is deprecated and to use ${replacement}; "
                        "${CXX} said:\n${diagnostics}")
  endif()
  message(STATUS "${old}: deprecated, naming ${replacement}")
endforeach()

# Nothing else: the old names compile as they did, with no other warning.
list(REMOVE_ITEM warnings ${explained})
if(warnings)
  string(REPLACE ";" "\n" unexplained "${warnings}")
  string(REPLACE "<semicolon>" ";" unexplained "${unexplained}")
  message(FATAL_ERROR "warnings other than the announced deprecations:\n${unexplained}\n\n${CXX} said:\n${diagnostics}")
endif()
