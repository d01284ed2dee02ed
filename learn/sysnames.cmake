# SPDX-License-Identifier: GPL-2.0-or-later
# Write the syscall name table of learn/sysnames.c from the SYS_* macros the C
# compiler knows for this target: cmake -DCC=... -DOUT=... -P sysnames.cmake
execute_process(COMMAND ${CC} -E -dM -include sys/syscall.h -x c /dev/null
  OUTPUT_VARIABLE defs RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot list the SYS_* macros with ${CC}")
endif()
string(REGEX MATCHALL "#define SYS_[A-Za-z0-9_]+ " found "${defs}")
list(SORT found)
set(text "/* Generated from <sys/syscall.h> by learn/sysnames.cmake; do not edit. */\n")
foreach(d ${found})
  string(REGEX REPLACE "#define SYS_([A-Za-z0-9_]+) " "\\1" name "${d}")
  string(APPEND text "{ SYS_${name}, \"${name}\" },\n")
endforeach()
file(WRITE ${OUT}.tmp "${text}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
