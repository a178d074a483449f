# Run by ctest (through the include file that aitk_gtest_groups in tests/CMakeLists.txt writes),
# as `cmake -P`, when a test executable is newer than its list: lists the executable's tests and
# writes OUT, a CTest script with one entry per group of up to SIZE tests in the listing's
# order (a group may span suites), each entry one process that runs its group through
# --gtest_filter.
#
# Why: under an emulator a test process costs far more than most tests. Under Wine a test
# executable's start took 0.12 s of CPU before any test ran, plus the wineserver's share, and a
# pure test of the pep layer took 0.94 s of ctest's wall clock at -j8 on 2 cores.
#
# Inputs (-D): EXE, the test executable; EMULATOR, the command that runs it (a list, may be
# empty); SIZE; WORKDIR; LABELS; PROCESSORS; EXCLUDED, a file whose `test REGEX reason` lines
# name tests not to run (ctest -E regexes over the same names gtest_discover_tests gives, with
# the pretty parameter values); OUT.
#
# Names: a group of one test keeps the name gtest_discover_tests gives it (typed tests aside: we
# have none); a larger group is named by its first test, `Suite.First and 7 more` (the log of a
# failed group names each test). Each group writes its results to
# WORKDIR/gtest-groups/<executable>-<n>.xml. No skip regex is set on a group: ctest would report
# a group that holds a skipped and a failed test as skipped.
cmake_minimum_required(VERSION 3.21)

foreach(input EXE SIZE WORKDIR LABELS PROCESSORS OUT)
    if(NOT DEFINED ${input})
        message(FATAL_ERROR "gtest_groups.cmake: -D${input}=... is missing")
    endif()
endforeach()

set(excluded_regexes "")
if(EXCLUDED)
    file(STRINGS "${EXCLUDED}" excluded_lines REGEX "^test ")
    foreach(line IN LISTS excluded_lines)
        string(REGEX REPLACE "^test +([^ ]+).*$" "\\1" regex "${line}")
        list(APPEND excluded_regexes "${regex}")
    endforeach()
endif()

execute_process(COMMAND ${EMULATOR} "${EXE}" --gtest_list_tests
                WORKING_DIRECTORY "${WORKDIR}" TIMEOUT 60
                OUTPUT_VARIABLE listing RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "Listing the tests of ${EXE} failed (${result}):\n${listing}${errors}")
endif()

# Parameter values may hold the characters that CMake lists treat specially: stand-ins for
# them while the listing is a list, the real characters back in each name.
string(REPLACE "[" "@aitk_osb@" listing "${listing}")
string(REPLACE "]" "@aitk_csb@" listing "${listing}")
string(REPLACE ";" "@aitk_semi@" listing "${listing}")
string(REPLACE "\r" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")

function(unescape var)
    set(text "${${var}}")
    string(REPLACE "@aitk_osb@" "[" text "${text}")
    string(REPLACE "@aitk_csb@" "]" text "${text}")
    string(REPLACE "@aitk_semi@" ";" text "${text}")
    set(${var} "${text}" PARENT_SCOPE)
endfunction()

set(script "")
set(test_count 0)
set(group_count 0)
set(group_filter "")
set(group_first "")
set(group_size 0)

function(bracket text out)  # text as a bracket argument that no ]==] in it can end
    set(equals "==")
    while(text MATCHES "]${equals}]")
        string(APPEND equals "=")
    endwhile()
    set(${out} "[${equals}[${text}]${equals}]" PARENT_SCOPE)
endfunction()

macro(flush_group)
    if(group_size GREATER 0)
        if(group_size EQUAL 1)
            set(name "${group_first}")
        else()
            math(EXPR more "${group_size} - 1")
            set(name "${group_first} and ${more} more")
        endif()
        unescape(name)
        foreach(regex IN LISTS excluded_regexes)
            if(name MATCHES "${regex}")
                message(FATAL_ERROR "The test group `${name}` of ${EXE} matches the exclusion "
                                    "`${regex}` of ${EXCLUDED}, which excludes by name: anchor "
                                    "the exclusion (^...$) so it names its tests only")
            endif()
        endforeach()
        bracket("${name}" quoted_name)
        set(command "")
        # Each group's results as gtest XML, relative to WORKDIR (an emulated Windows program
        # reads a POSIX path differently): ctest reports a group that skipped a test as passed,
        # and CI counts the skipped tests from these (.ci/grouped-results).
        set(xml "--gtest_output=xml:gtest-groups/${exe_name}-${group_count}.xml")
        foreach(word IN LISTS EMULATOR ITEMS "${EXE}" "--gtest_filter=${group_filter}" "${xml}")
            bracket("${word}" quoted_word)
            string(APPEND command " ${quoted_word}")
        endforeach()
        bracket("${WORKDIR}" quoted_dir)
        string(APPEND script "add_test(${quoted_name}${command})\n"
               "set_tests_properties(${quoted_name} PROPERTIES WORKING_DIRECTORY ${quoted_dir} "
               "LABELS ${LABELS} PROCESSORS ${PROCESSORS})\n")
        math(EXPR group_count "${group_count} + 1")
    endif()
    set(group_filter "")
    set(group_size 0)
endmacro()

get_filename_component(exe_name "${EXE}" NAME_WE)
set(suite "")
foreach(line IN LISTS lines)
    if(line STREQUAL "" OR line MATCHES "gtest_main\\.cc")
        continue()
    endif()
    if(NOT line MATCHES "^  ")
        string(REGEX REPLACE "\\.( *#.*)?$" "" suite "${line}")
        continue()
    endif()
    string(STRIP "${line}" test)
    # The name gtest_discover_tests gives: a parameter's index replaced by its printed value.
    if(test MATCHES "#")
        string(REGEX REPLACE "/[0-9]+[ #]+GetParam\\(\\) = " "/" pretty "${test}")
        string(REGEX REPLACE " +#.*" "" test "${test}")
    else()
        set(pretty "${test}")
    endif()
    if(suite MATCHES "^DISABLED_" OR test MATCHES "^DISABLED_")
        continue()
    endif()
    set(full_name "${suite}.${pretty}")
    unescape(full_name)
    set(excluded FALSE)
    foreach(regex IN LISTS excluded_regexes)
        if(full_name MATCHES "${regex}")
            set(excluded TRUE)
            break()
        endif()
    endforeach()
    if(excluded)
        continue()
    endif()
    if(group_size EQUAL SIZE)
        flush_group()
    endif()
    if(group_size EQUAL 0)
        set(group_first "${suite}.${pretty}")
        set(group_filter "${suite}.${test}")
    else()
        string(APPEND group_filter ":${suite}.${test}")
    endif()
    math(EXPR group_size "${group_size} + 1")
    math(EXPR test_count "${test_count} + 1")
endforeach()
flush_group()

file(WRITE "${OUT}" "# aitk-env test groups: ${exe_name} ${test_count} tests in ${group_count} entries\n"
     "${script}")
