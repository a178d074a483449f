# The Windows script launchers (launcher.c), built for the target and compiled into aitk_install
# as aitk::embedded::windows_launcher_{console,gui}_exe(), so every Windows aitk-env writes
# `<name>.exe` launchers without a compiler on the user's machine. Other builds skip this file:
# there the images are injected (tests build them with mingw-w64).
if(NOT WIN32)
    return()
endif()

set(aitk_launcher_source ${PROJECT_SOURCE_DIR}/src/install/windows/launcher.c)
add_executable(aitk_launcher_console ${aitk_launcher_source})
add_executable(aitk_launcher_gui WIN32 ${aitk_launcher_source})
target_compile_definitions(aitk_launcher_gui PRIVATE AITK_LAUNCHER_GUI)

foreach(kind console gui)
    set(launcher aitk_launcher_${kind})
    target_compile_definitions(${launcher} PRIVATE UNICODE _UNICODE)
    # The launcher is copied into every Scripts folder: small, and needing no C runtime DLL
    # that the user's machine may lack (static CRT with MSVC, msvcrt.dll with mingw).
    set_target_properties(${launcher} PROPERTIES MSVC_RUNTIME_LIBRARY MultiThreaded)
    if(MSVC)
        target_compile_options(${launcher} PRIVATE /O1 /W4)
    else()
        # -municode: wmain / wWinMain, UTF-16 arguments.
        target_compile_options(${launcher} PRIVATE -Os -municode -Wall -Wextra)
        target_link_options(${launcher} PRIVATE -municode -s)
    endif()

    # The executable's bytes as a C++ function, through cmake/embed.cmake (the script behind
    # aitk_embed, which only takes files of the source tree): the input here is a build output,
    # named by generator expression so multi-config generators find it, and depending on the
    # target makes the source regenerate whenever the launcher is relinked.
    set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded/windows_launcher_${kind}_exe.cpp)
    add_custom_command(
        OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -DIN=$<TARGET_FILE:${launcher}> -DOUT=${out}
                -DSYMBOL=windows_launcher_${kind}_exe -P ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
        DEPENDS ${launcher} ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
        COMMENT "Embedding the Windows ${kind} script launcher")
    target_sources(aitk_install PRIVATE ${out})
endforeach()
target_compile_definitions(aitk_install PRIVATE AITK_ENV_EMBEDDED_LAUNCHERS)
