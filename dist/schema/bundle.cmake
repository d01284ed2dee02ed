# SPDX-License-Identifier: GPL-2.0-or-later
#
# cmake -DIN=docs/schema/audit.schema.json -DOUT=... -P bundle.cmake
#
# Makes a JSON Schema (draft 2020-12) self-contained: every other schema of
# its directory that it refers to ("$ref": "facts.schema.json", directly or
# through another one) is embedded under "$defs" with its own "$id", as the
# specification's compound documents allow.  A validator then resolves the
# reference to the embedded copy by its "$id" and never tries to fetch
# https://suid2cap.invalid/schema/...  The references themselves are left
# as they are.

cmake_minimum_required(VERSION 3.20)

get_filename_component(dir "${IN}" DIRECTORY)
file(READ "${IN}" doc)
string(JSON id GET "${doc}" "$id")
string(REGEX REPLACE "/[^/]*$" "/" base "${id}")

set(done)
set(todo "${doc}")
while(todo)
  list(POP_FRONT todo text)
  # Every "$ref" whose target names another file of the directory.
  string(REGEX MATCHALL "\"\\$ref\" *: *\"[A-Za-z0-9_.-]+\\.json" refs "${text}")
  foreach(ref ${refs})
    string(REGEX REPLACE ".*\"([A-Za-z0-9_.-]+\\.json)$" "\\1" name "${ref}")
    if(name IN_LIST done)
      continue()
    endif()
    list(APPEND done "${name}")
    if(NOT EXISTS "${dir}/${name}")
      message(FATAL_ERROR "${IN}: \$ref to '${name}', which is not in ${dir}")
    endif()
    file(READ "${dir}/${name}" sub)
    string(JSON subid GET "${sub}" "$id")
    if(NOT subid STREQUAL "${base}${name}")
      message(FATAL_ERROR "${dir}/${name}: \$id is '${subid}', not '${base}${name}'")
    endif()
    # one dialect for the whole document: the embedded resources take the outer one
    string(JSON sub REMOVE "${sub}" "$schema")
    string(JSON defs ERROR_VARIABLE none GET "${doc}" "$defs")
    if(none)
      string(JSON doc SET "${doc}" "$defs" "{}")
    endif()
    string(JSON doc SET "${doc}" "$defs" "${name}" "${sub}")
    list(APPEND todo "${sub}")
  endforeach()
endwhile()

file(WRITE "${OUT}.tmp" "${doc}\n")
file(RENAME "${OUT}.tmp" "${OUT}")
