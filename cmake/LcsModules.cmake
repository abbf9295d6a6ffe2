# lcs_modules(OUT stem...): the .cpp and .h of each stem ("core/job" -> core/job.cpp
# core/job.h), so that a library's list names each module once.
function(lcs_modules out)
  set(files)
  foreach(stem IN LISTS ARGN)
    list(APPEND files ${stem}.cpp ${stem}.h)
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()
