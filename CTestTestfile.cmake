# CTestTestfile.cmake -- lets `ctest -L lesson3` work from the repository root,
# as the course's cards write it: CTest reads this file, which hands over to
# the student build (build/, `cmake --preset student`), or, where only the
# solutions were built, to build-solutions/. Not generated: the course never
# builds in its source folder. Run in build/ itself, ctest needs no help.
if(EXISTS "build/CTestTestfile.cmake")
  subdirs(build)
elseif(EXISTS "build-solutions/CTestTestfile.cmake")
  subdirs(build-solutions)
else()
  message(FATAL_ERROR "No build here yet, so there is nothing to test. First run, from the repository root:\n"
                      "  cmake --preset student && cmake --build --preset student\n"
                      "then `ctest -L lesson1` (here or in build/).")
endif()
