# CTestCustom.cmake -- from the repository root, `ctest` reads this file: it
# takes the speed summary of the build that CTestTestfile.cmake hands over to
# (written there by cmake/Course.cmake). Not generated.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/build/CTestTestfile.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/build/CTestCustom.cmake" OPTIONAL)
elseif(EXISTS "${CMAKE_CURRENT_LIST_DIR}/build-solutions/CTestTestfile.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/build-solutions/CTestCustom.cmake" OPTIONAL)
endif()
