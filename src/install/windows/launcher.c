/*
 * aitk-env's Windows script launcher. An installed `<Scripts>\<name>.exe` is this program
 * followed by a payload the installer appends (src/install/windows_launcher.cpp writes it):
 *
 *   [this image][zip archive holding __main__.py][#!<python>\n][u32 LE length][AITKLNCH]
 *
 * The `#!<python>\n` line, its little-endian length (the line's bytes, "#!" and "\n" included)
 * and the magic are the zip's comment, so the file stays a valid zip. The launcher reads only
 * the last bytes of its own file to learn the Python (UTF-8; a relative path is relative to the
 * launcher's folder, so a prefix can be moved), then runs
 *
 *   "<python>" "<this exe>" <its own arguments, verbatim>
 *
 * and Python runs the appended zip's __main__.py (zipimport finds a zip from the end of a
 * file). The launcher waits and exits with the child's exit code.
 *
 * Build: console scripts as a console program; GUI scripts with AITK_LAUNCHER_GUI defined and
 * the windows subsystem (the installer records pythonw.exe for them). UTF-16 entry points:
 * mingw needs -municode.
 */
#define WIN32_LEAN_AND_MEAN
#ifndef UNICODE
#define UNICODE
#endif
#include <windows.h>

#define MAGIC "AITKLNCH"
#define MAGIC_SIZE 8
#define TAIL_SIZE (4 + MAGIC_SIZE)
/* A Windows path is at most 32767 UTF-16 units, at most 3 UTF-8 bytes each; plus "#!" "\n". */
#define MAX_LINE (3 * 32767 + 3)
#define LAUNCHER_FAILED 1

/* A growing UTF-16 string on the process heap. Launcher strings live until the process ends,
 * so nothing is freed. */
typedef struct {
    wchar_t* text;
    size_t length;
    size_t capacity;
} Text;

DECLSPEC_NORETURN static void fail(const wchar_t* message);

static void* allocate(size_t bytes) {
    void* p = HeapAlloc(GetProcessHeap(), 0, bytes);
    if (p == NULL) fail(L"out of memory");
    return p;
}

static void append_n(Text* t, const wchar_t* s, size_t n) {
    size_t i;
    if (t->length + n + 1 > t->capacity) {
        size_t capacity = (t->length + n + 1) * 2;
        wchar_t* grown = (wchar_t*)allocate(capacity * sizeof(wchar_t));
        for (i = 0; i < t->length; ++i)
            grown[i] = t->text[i];
        t->text = grown;
        t->capacity = capacity;
    }
    for (i = 0; i < n; ++i)
        t->text[t->length + i] = s[i];
    t->length += n;
    t->text[t->length] = L'\0';
}

static void append(Text* t, const wchar_t* s) {
    append_n(t, s, (size_t)lstrlenW(s));
}

static void append_error_text(Text* t, DWORD error) {
    wchar_t* system_text = NULL;
    DWORD n = FormatMessageW(
        FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
        NULL, error, 0, (LPWSTR)&system_text, 0, NULL);
    wchar_t number[16];
    int i = 15;
    while (n > 0 && (system_text[n - 1] == L'\r' || system_text[n - 1] == L'\n' ||
                     system_text[n - 1] == L' ' || system_text[n - 1] == L'.')) {
        --n;
    }
    if (n > 0) {
        append_n(t, system_text, n);
        append(t, L" ");
    }
    if (system_text != NULL) LocalFree(system_text);
    number[i] = L'\0';
    do {
        number[--i] = (wchar_t)(L'0' + error % 10);
        error /= 10;
    } while (error > 0 && i > 0);
    append(t, L"(error ");
    append(t, number + i);
    append(t, L")");
}

/* Writes the message to stderr: through the console API when stderr is a console (so any
 * character shows), as UTF-8 when it is redirected. A GUI launcher usually has no stderr: it
 * shows a message box instead. */
static void report(const wchar_t* message) {
    HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
    DWORD mode;
    DWORD written;
    int length = lstrlenW(message);
    if (err != NULL && err != INVALID_HANDLE_VALUE) {
        if (GetConsoleMode(err, &mode)) {
            WriteConsoleW(err, message, (DWORD)length, &written, NULL);
            WriteConsoleW(err, L"\r\n", 2, &written, NULL);
            return;
        }
        if (GetFileType(err) != FILE_TYPE_UNKNOWN) {
            int bytes = WideCharToMultiByte(CP_UTF8, 0, message, length, NULL, 0, NULL, NULL);
            char* utf8 = (char*)HeapAlloc(GetProcessHeap(), 0, (SIZE_T)bytes + 2);
            if (utf8 != NULL) {
                WideCharToMultiByte(CP_UTF8, 0, message, length, utf8, bytes, NULL, NULL);
                utf8[bytes] = '\r';
                utf8[bytes + 1] = '\n';
                WriteFile(err, utf8, (DWORD)bytes + 2, &written, NULL);
                return;
            }
        }
    }
#ifdef AITK_LAUNCHER_GUI
    MessageBoxW(NULL, message, L"aitk-env script launcher", MB_OK | MB_ICONERROR);
#endif
}

DECLSPEC_NORETURN static void fail(const wchar_t* message) {
    report(message);
    ExitProcess(LAUNCHER_FAILED);
}

DECLSPEC_NORETURN static void fail_with(const wchar_t* what, const wchar_t* path, DWORD error) {
    Text t = {0};
    append(&t, what);
    append(&t, path);
    append(&t, L": ");
    append_error_text(&t, error);
    fail(t.text);
}

/* This program's own path. GetModuleFileNameW truncates silently, so the buffer grows until
 * the whole path fits. */
static wchar_t* own_path(void) {
    DWORD capacity = MAX_PATH;
    for (;;) {
        wchar_t* buffer = (wchar_t*)allocate(capacity * sizeof(wchar_t));
        DWORD n = GetModuleFileNameW(NULL, buffer, capacity);
        if (n == 0) {
            Text t = {0};
            append(&t, L"aitk-env launcher: cannot find its own file: ");
            append_error_text(&t, GetLastError());
            fail(t.text);
        }
        if (n < capacity) return buffer;
        if (capacity >= 32768) fail(L"aitk-env launcher: its own path is too long");
        capacity *= 2;
    }
}

static void read_at(HANDLE file, const wchar_t* self, LONGLONG offset, char* into, DWORD size) {
    LARGE_INTEGER at;
    DWORD got = 0;
    at.QuadPart = offset;
    if (!SetFilePointerEx(file, at, NULL, FILE_BEGIN) || !ReadFile(file, into, size, &got, NULL)) {
        fail_with(L"aitk-env launcher: cannot read ", self, GetLastError());
    }
    if (got != size) fail_with(L"aitk-env launcher: cannot read ", self, ERROR_HANDLE_EOF);
}

DECLSPEC_NORETURN static void fail_no_script(const wchar_t* self) {
    Text t = {0};
    append(&t, L"aitk-env launcher: ");
    append(&t, self);
    append(&t,
           L" has no script attached (its AITKLNCH trailer is missing or damaged).\r\n"
           L"Reinstall the package that provides it: run `aitk-env sync`.");
    fail(t.text);
}

/* The interpreter path recorded in the trailer (UTF-8 bytes, NUL-terminated). Two small reads
 * from the end of the file: the fixed tail, then the "#!<python>\n" line it measures. */
static char* recorded_python(const wchar_t* self) {
    HANDLE file =
        CreateFileW(self, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    LARGE_INTEGER size;
    unsigned char tail[TAIL_SIZE];
    DWORD line_size;
    char* line;
    int i;
    if (file == INVALID_HANDLE_VALUE) {
        fail_with(L"aitk-env launcher: cannot open ", self, GetLastError());
    }
    if (!GetFileSizeEx(file, &size)) {
        fail_with(L"aitk-env launcher: cannot read ", self, GetLastError());
    }
    if (size.QuadPart < TAIL_SIZE) fail_no_script(self);
    read_at(file, self, size.QuadPart - TAIL_SIZE, (char*)tail, TAIL_SIZE);
    for (i = 0; i < MAGIC_SIZE; ++i) {
        if (tail[4 + i] != (unsigned char)MAGIC[i]) fail_no_script(self);
    }
    line_size =
        (DWORD)tail[0] | ((DWORD)tail[1] << 8) | ((DWORD)tail[2] << 16) | ((DWORD)tail[3] << 24);
    if (line_size < 4 || line_size > MAX_LINE || (LONGLONG)line_size > size.QuadPart - TAIL_SIZE) {
        fail_no_script(self);
    }
    line = (char*)allocate(line_size + 1);
    read_at(file, self, size.QuadPart - TAIL_SIZE - line_size, line, line_size);
    CloseHandle(file);
    if (line[0] != '#' || line[1] != '!' || line[line_size - 1] != '\n') fail_no_script(self);
    line[line_size - 1] = '\0';
    if (line_size >= 4 && line[line_size - 2] == '\r') line[line_size - 2] = '\0';
    if (line[2] == '\0') fail_no_script(self);
    return line + 2;
}

static wchar_t* widen(const char* utf8, const wchar_t* self) {
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
    wchar_t* wide;
    if (n <= 0) fail_no_script(self);
    wide = (wchar_t*)allocate((size_t)n * sizeof(wchar_t));
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, wide, n);
    return wide;
}

static int is_separator(wchar_t c) {
    return c == L'\\' || c == L'/';
}

/* "C:\x", "C:x", "\x" and "\\server\share" name their own root; anything else is relative to
 * the launcher's folder. */
static int is_relative(const wchar_t* path) {
    if (is_separator(path[0])) return 0;
    if (path[0] != L'\0' && path[1] == L':') return 0;
    return 1;
}

/* The interpreter to run: the recorded path, joined to the launcher's folder when relative,
 * with "." and ".." folded away so error messages name a plain path. */
static wchar_t* python_path(const wchar_t* self, const wchar_t* recorded) {
    Text joined = {0};
    wchar_t* full;
    DWORD n;
    if (is_relative(recorded)) {
        size_t folder_end = 0;
        size_t i;
        for (i = 0; self[i] != L'\0'; ++i) {
            if (is_separator(self[i])) folder_end = i + 1;
        }
        append_n(&joined, self, folder_end);
    }
    append(&joined, recorded);
    n = GetFullPathNameW(joined.text, 0, NULL, NULL);
    if (n == 0) return joined.text;
    full = (wchar_t*)allocate((size_t)n * sizeof(wchar_t));
    if (GetFullPathNameW(joined.text, n, full, NULL) == 0) return joined.text;
    return full;
}

/* The arguments this launcher got, exactly as its parent wrote them: the command line after
 * the program name. The name ends at the first blank outside double quotes, which toggle and
 * are never escaped there (the C runtime's rule for argv[0]; it agrees with CommandLineToArgvW
 * for every name a shell writes: `"C:\a b\x.exe"` and `C:\ab\x.exe`). */
static const wchar_t* arguments_after_program(const wchar_t* command_line) {
    const wchar_t* p = command_line;
    int quoted = 0;
    for (; *p != L'\0'; ++p) {
        if (*p == L'"') {
            quoted = !quoted;
        } else if (!quoted && (*p == L' ' || *p == L'\t')) {
            break;
        }
    }
    while (*p == L' ' || *p == L'\t')
        ++p;
    return p;
}

static HANDLE child_process = NULL;

/* Ctrl-C and Ctrl-Break reach the child as well (it shares the console), so the launcher
 * ignores them and the child decides what they mean. When the console closes or the user
 * logs off, Windows ends this process as soon as the handler returns, which closes the job and
 * would kill the child in the middle of its own cleanup: wait for it instead. A handler
 * routine (rather than SetConsoleCtrlHandler(NULL, TRUE)) is used because the NULL form is
 * inherited by children and would stop Ctrl-C from reaching Python at all. */
static BOOL WINAPI on_console_event(DWORD event) {
    if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && child_process != NULL) {
        WaitForSingleObject(child_process, INFINITE);
    }
    return TRUE;
}

/* A job that ends the child when the launcher ends (killed from Task Manager, its console
 * closed): the child never outlives the program the user started. Processes the child starts
 * may leave the job (silent breakaway), so servers and daemons it launches keep running as
 * they would under python.exe itself. NULL when jobs are unavailable: the launcher still
 * works, without that guarantee. */
static HANDLE make_job(void) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
    HANDLE job = CreateJobObjectW(NULL, NULL);
    if (job == NULL) return NULL;
    ZeroMemory(&limits, sizeof limits);
    limits.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
    if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
        CloseHandle(job);
        return NULL;
    }
    return job;
}

static int run(void) {
    wchar_t* self = own_path();
    wchar_t* python = python_path(self, widen(recorded_python(self), self));
    const wchar_t* arguments = arguments_after_program(GetCommandLineW());
    DWORD attributes = GetFileAttributesW(python);
    Text command = {0};
    STARTUPINFOW startup;
    PROCESS_INFORMATION child;
    HANDLE job;
    DWORD exit_code = LAUNCHER_FAILED;

    if (attributes == INVALID_FILE_ATTRIBUTES || (attributes & FILE_ATTRIBUTE_DIRECTORY)) {
        Text t = {0};
        append(&t, L"aitk-env launcher: the Python interpreter recorded in ");
        append(&t, self);
        append(&t, L" was not found: ");
        append(&t, python);
        append(&t,
               L"\r\nThe environment may have been moved without its Scripts folder, or its Python "
               L"removed. Run `aitk-env sync` to reinstall the environment and its launchers.");
        fail(t.text);
    }

    /* Paths cannot contain '"', so quoting them needs no escapes. */
    append(&command, L"\"");
    append(&command, python);
    append(&command, L"\" \"");
    append(&command, self);
    append(&command, L"\"");
    if (*arguments != L'\0') {
        append(&command, L" ");
        append(&command, arguments);
    }

    /* The child gets what this launcher got: the same standard handles and window settings. */
    GetStartupInfoW(&startup);
    job = make_job();
    if (!CreateProcessW(python, command.text, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL,
                        &startup, &child)) {
        fail_with(L"aitk-env launcher: cannot start ", python, GetLastError());
    }
    /* Suspended until it is in the job, so nothing it starts escapes the job by a race. */
    if (job != NULL) AssignProcessToJobObject(job, child.hProcess);
    child_process = child.hProcess;
    SetConsoleCtrlHandler(on_console_event, TRUE);
    ResumeThread(child.hThread);
    CloseHandle(child.hThread);
    WaitForSingleObject(child.hProcess, INFINITE);
    if (!GetExitCodeProcess(child.hProcess, &exit_code)) exit_code = LAUNCHER_FAILED;
    return (int)exit_code;
}

#ifdef AITK_LAUNCHER_GUI
int WINAPI wWinMain(HINSTANCE instance, HINSTANCE previous, PWSTR command_line, int show) {
    (void)instance;
    (void)previous;
    (void)command_line;
    (void)show;
    return run();
}
#else
int wmain(int argc, wchar_t** argv) {
    (void)argc;
    (void)argv;
    return run();
}
#endif
