# Cross-compiles aitk-env for x86_64 Windows on Debian with mingw-w64's -posix compilers (the
# -posix thread model is the one that has std::thread and std::mutex).
#
# AITK_MINGW_DEPS (cache variable or environment variable) names the folder that holds the
# Windows builds of our dependencies: include/, lib/*.a, lib/cmake. .ci/windows-deps makes it
# from Debian's source packages; CI unpacks a prebuilt copy when one is at hand. Default:
# build/mingw-deps of this checkout.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(AITK_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${AITK_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${AITK_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${AITK_MINGW_TRIPLE}-windres)

if(NOT AITK_MINGW_DEPS AND DEFINED ENV{AITK_MINGW_DEPS})
    set(AITK_MINGW_DEPS "$ENV{AITK_MINGW_DEPS}")
endif()
if(NOT AITK_MINGW_DEPS)
    get_filename_component(AITK_MINGW_DEPS "${CMAKE_CURRENT_LIST_DIR}/../../build/mingw-deps" ABSOLUTE)
endif()
if(NOT AITK_MINGW_DEPS OR NOT EXISTS "${AITK_MINGW_DEPS}/lib")
    message(FATAL_ERROR "AITK_MINGW_DEPS='${AITK_MINGW_DEPS}' holds no Windows dependencies: "
                        "build them with `bash .ci/windows-deps` (see README, Windows)")
endif()
# Toolchain files are read again by try_compile: pass the folder on to those projects.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AITK_MINGW_DEPS)

set(CMAKE_FIND_ROOT_PATH /usr/${AITK_MINGW_TRIPLE} ${AITK_MINGW_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static archives before import libraries: one self-contained aitk-env.exe that needs no DLL
# beside it (a clean Windows has none of ours).
set(CMAKE_FIND_LIBRARY_SUFFIXES .a .dll.a)
set(OPENSSL_USE_STATIC_LIBS ON)
set(OPENSSL_ROOT_DIR ${AITK_MINGW_DEPS})
set(ZLIB_LIBRARY /usr/${AITK_MINGW_TRIPLE}/lib/libz.a)
set(ENV{PKG_CONFIG_LIBDIR} "${AITK_MINGW_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# ctest runs the cross-built tests through Wine (.ci/windows sets up a private prefix).
find_program(AITK_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(AITK_WINE)
    # Through wine-run, which starts again a program Wine failed to start (see there).
    set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-run ${AITK_WINE})
endif()
