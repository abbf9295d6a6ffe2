# Which translation units use the LibTorch precompiled header.
#
# Loading the torch PCH costs a translation unit about 5 s before its first line (measured
# on an empty file here), while a unit that never reaches a LibTorch header compiles in
# 4-10 s without it: main_window.cpp 9.1 s with the PCH, 4.0 s without; cli_flags.cpp
# 20.9 s and 10.2 s. A unit that includes LibTorch still gains from it
# (synthetic_page.cpp 18.8 s with, 24.7 s without). So every target keeps the PCH, and
# lcs_torch_pch_where_used() turns it off for the sources whose includes, followed through
# the project's own headers, reach no <torch/...> or <ATen/...> header (c10's few utility
# headers are cheap and do not count).

# Where a quoted include is looked up after the including file's own folder: every
# include names its file from the repository's root ("engine/core/job.h").
set(LCS_INCLUDE_ROOTS "${PROJECT_SOURCE_DIR}")

# Sets `out` to ON when `file` includes a LibTorch header, directly or through a
# project header (results kept per file for the whole configure run).
function(_lcs_reaches_torch file out)
  get_property(known GLOBAL PROPERTY "LCS_TORCH_${file}" SET)
  if(known)
    get_property(value GLOBAL PROPERTY "LCS_TORCH_${file}")
    set(${out} ${value} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "LCS_TORCH_${file}" OFF)  # an include cycle ends here
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include")
  get_filename_component(own "${file}" DIRECTORY)
  set(result OFF)
  foreach(line IN LISTS lines)
    if(line MATCHES "<(torch|ATen)/")
      set(result ON)
      break()
    endif()
    if(line MATCHES "\"([^\"]+)\"")
      set(name "${CMAKE_MATCH_1}")
      foreach(root IN ITEMS "${own}" ${LCS_INCLUDE_ROOTS})
        if(EXISTS "${root}/${name}" AND NOT IS_DIRECTORY "${root}/${name}")
          _lcs_reaches_torch("${root}/${name}" sub)
          if(sub)
            set(result ON)
          endif()
          break()  # the first match is the one the compiler takes
        endif()
      endforeach()
      if(result)
        break()
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "LCS_TORCH_${file}" ${result})
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# Keeps `target`'s PCH only for its sources that reach LibTorch; its Qt moc unit (which
# compiles the moc output of its headers, none of which includes LibTorch) goes without.
function(lcs_torch_pch_where_used target)
  if(NOT LCS_USE_PCH)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(skipped)
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.cpp$")
      continue()
    endif()
    if(IS_ABSOLUTE "${source}")
      set(path "${source}")
    else()
      set(path "${dir}/${source}")
    endif()
    if(NOT EXISTS "${path}")
      continue()  # generated
    endif()
    _lcs_reaches_torch("${path}" torch)
    if(NOT torch)
      list(APPEND skipped "${path}")
    endif()
  endforeach()
  get_target_property(automoc ${target} AUTOMOC)
  if(automoc)
    get_target_property(binary ${target} BINARY_DIR)
    list(APPEND skipped "${binary}/${target}_autogen/mocs_compilation.cpp")
  endif()
  if(skipped)
    set_source_files_properties(${skipped} TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
endfunction()

# Every target below `dirs` that uses the PCH (its own or lcs_engine's).
function(lcs_torch_pch_where_used_in)
  foreach(dir IN LISTS ARGN)
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(own ${target} PRECOMPILE_HEADERS)
      get_target_property(reused ${target} PRECOMPILE_HEADERS_REUSE_FROM)
      if(own OR reused)
        lcs_torch_pch_where_used(${target})
      endif()
    endforeach()
  endforeach()
endfunction()
