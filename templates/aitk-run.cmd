@echo off
rem aitk-run.cmd CMD [ARGS...]: runs CMD (python when none is given) with the environment of this
rem aitk-env prefix, the same one `aitk-env run` gives. Written by `aitk-env setup`, which
rem overwrites changes made here. Values are written for `set NAME=...` with percent signs
rem doubled and a caret before each caret, ampersand, pipe, angle bracket, parenthesis and double
rem quote; delayed expansion is off, so exclamation marks are plain. PATH entries lose their
rem quotes, which keeps every character in them inert while they are filtered.
setlocal EnableExtensions DisableDelayedExpansion
@CMD_CODEPAGE_BEGIN@
set _AITK_PREFIX=@CMD_PREFIX@
set _AITK_SCRIPTS=@CMD_SCRIPTS@

rem Python and pip must not look outside the prefix.
for %%N in (@CMD_SCRUBBED_NAMES@) do set "%%N="
for /f "delims==" %%N in ('set PIP_ 2^>nul ^| findstr /r /i /c:"^PIP_[ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_]*="') do set "%%N="
set "VIRTUAL_ENV=%_AITK_PREFIX%"

rem The prefix's programs first, each folder once; folders of CUDA, cuDNN, NCCL or OpenMP
rem runtimes dropped (judged from their text, case ignored, / and \ alike): they would shadow the
rem DLLs the torch wheels bundle.
set "_AITK_NEW=%_AITK_SCRIPTS%"
if not defined PATH goto aitk_path_done
set "_AITK_REST=%PATH:"=%"
:aitk_path_next
if not defined _AITK_REST goto aitk_path_done
set "_AITK_LINE=%_AITK_REST%"
set "_AITK_ENTRY="
set "_AITK_REST="
for /f "tokens=1* delims=; eol=|" %%A in ("%_AITK_LINE%") do (
    set "_AITK_ENTRY=%%A"
    set "_AITK_REST=%%B"
)
if not defined _AITK_ENTRY goto aitk_path_done
if /i "%_AITK_ENTRY%"=="%_AITK_SCRIPTS%" goto aitk_path_next
set "_AITK_T=/%_AITK_ENTRY:\=/%/"
@CMD_KEEP_TESTS@
@CMD_SHADOW_TESTS@
:aitk_path_keep
set "_AITK_NEW=%_AITK_NEW%;%_AITK_ENTRY%"
goto aitk_path_next
:aitk_path_done
set "PATH=%_AITK_NEW%"

rem The lock's variables.
@CMD_VARIABLES@
set "_AITK_PREFIX="
set "_AITK_NEW="
set "_AITK_REST="
set "_AITK_LINE="
set "_AITK_ENTRY="
set "_AITK_T="
@CMD_CODEPAGE_END@
if "%~1"=="" goto aitk_run_python
set "_AITK_SCRIPTS=" & %*
exit /b %ERRORLEVEL%
:aitk_run_python
set "_AITK_SCRIPTS=" & "%_AITK_SCRIPTS%\python.exe"
