/* A child program for the subprocess tests that behaves the same on POSIX and on Windows, so the
 * same test drives util::run_process through fork/exec and through CreateProcessW (no /bin/sh,
 * printf, cat or head needed). One command per run:
 *   args SEP ARG...      prints each ARG followed by SEP (what the child really received)
 *   env NAME...          prints "NAME=value" or "NAME=unset" for each, space-separated, then \n
 *   talk OUT ERR CODE    prints OUT\n to stdout and ERR\n to stderr, exits CODE
 *   cat                  copies stdin to stdout
 *   zeros N              writes N zero bytes to stdout
 *   pwd                  prints the working directory and \n
 *   sleep SECONDS        sleeps
 *   tree PIDFILE         starts `sleep 30` as its own child, writes that child's pid to PIDFILE,
 *                        prints "started" and waits for it
 *   orphan               starts `sleep 30` holding stdout, prints "done", exits 0 at once
 *   crash                dies of an access violation (Windows) or SIGSEGV (POSIX)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <windows.h>
/* windows.h first: shellapi.h needs its types. */
#include <shellapi.h>
#else
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

static void sleep_seconds(int seconds) {
#ifdef _WIN32
    Sleep((DWORD)seconds * 1000);
#else
    sleep((unsigned)seconds);
#endif
}

/* Starts this program again as `self sleep 30`; returns its pid, or -1. */
static long start_sleeper(const char* self) {
#ifdef _WIN32
    (void)self;
    wchar_t exe[MAX_PATH];
    GetModuleFileNameW(NULL, exe, MAX_PATH);
    wchar_t line[MAX_PATH + 32];
    swprintf(line, MAX_PATH + 32, L"\"%ls\" sleep 30", exe);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(exe, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) return -1;
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return (long)pi.dwProcessId;
#else
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "sleep", "30", (char*)NULL);
        _exit(127);
    }
    return (long)pid;
#endif
}

static void wait_for(long pid) {
#ifdef _WIN32
    HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
    if (h) {
        WaitForSingleObject(h, INFINITE);
        CloseHandle(h);
    }
#else
    int status = 0;
    waitpid((pid_t)pid, &status, 0);
#endif
}

#ifdef _WIN32
/* UTF-8 of a UTF-16 string, malloc'd. */
static char* utf8_of(const wchar_t* wide) {
    int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
    char* out = (char*)malloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || !WideCharToMultiByte(CP_UTF8, 0, wide, -1, out, n, NULL, NULL)) out[0] = 0;
    return out;
}

/* The variable as UTF-8 (main's environment is in the ANSI code page), or NULL. */
static const char* env_value(const char* name) {
    wchar_t wide_name[256];
    MultiByteToWideChar(CP_UTF8, 0, name, -1, wide_name, 256);
    const wchar_t* value = _wgetenv(wide_name);
    return value ? utf8_of(value) : NULL;
}
#else
static const char* env_value(const char* name) {
    return getenv(name);
}
#endif

int main(int argc, char** argv) {
#ifdef _WIN32
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    /* The arguments as they were sent, in UTF-8 (main's argv is in the ANSI code page). */
    int wide_count = 0;
    wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &wide_count);
    if (wide != NULL && wide_count == argc) {
        for (int i = 0; i < argc; ++i)
            argv[i] = utf8_of(wide[i]);
    }
#endif
    if (argc < 2) return 2;
    const char* command = argv[1];
    if (strcmp(command, "args") == 0 && argc >= 3) {
        for (int i = 3; i < argc; ++i)
            printf("%s%s", argv[i], argv[2]);
        return 0;
    }
    if (strcmp(command, "env") == 0) {
        for (int i = 2; i < argc; ++i) {
            const char* value = env_value(argv[i]);
            printf("%s%s=%s", i > 2 ? " " : "", argv[i], value ? value : "unset");
        }
        printf("\n");
        return 0;
    }
    if (strcmp(command, "talk") == 0 && argc == 5) {
        printf("%s\n", argv[2]);
        fflush(stdout);
        fprintf(stderr, "%s\n", argv[3]);
        return atoi(argv[4]);
    }
    if (strcmp(command, "cat") == 0) {
        char buffer[65536];
        size_t n;
        while ((n = fread(buffer, 1, sizeof buffer, stdin)) > 0)
            fwrite(buffer, 1, n, stdout);
        return 0;
    }
    if (strcmp(command, "zeros") == 0 && argc == 3) {
        static const char zeros[4096];
        long left = atol(argv[2]);
        while (left > 0) {
            size_t n = left < (long)sizeof zeros ? (size_t)left : sizeof zeros;
            if (fwrite(zeros, 1, n, stdout) != n) return 1;
            left -= (long)n;
        }
        return 0;
    }
    if (strcmp(command, "pwd") == 0) {
        char cwd[4096];
#ifdef _WIN32
        if (!_getcwd(cwd, sizeof cwd)) return 1;
#else
        if (!getcwd(cwd, sizeof cwd)) return 1;
#endif
        printf("%s\n", cwd);
        return 0;
    }
    if (strcmp(command, "sleep") == 0 && argc == 3) {
        sleep_seconds(atoi(argv[2]));
        return 0;
    }
    if (strcmp(command, "tree") == 0 && argc == 3) {
        long pid = start_sleeper(argv[0]);
        if (pid < 0) return 1;
        FILE* f = fopen(argv[2], "w");
        if (!f) return 1;
        fprintf(f, "%ld\n", pid);
        fclose(f);
        printf("started\n");
        fflush(stdout);
        wait_for(pid);
        return 0;
    }
    if (strcmp(command, "orphan") == 0) {
        if (start_sleeper(argv[0]) < 0) return 1;
        printf("done\n");
        return 0;
    }
    if (strcmp(command, "crash") == 0) {
#ifdef _WIN32
        volatile int* nothing = NULL;
        return *nothing; /* an access violation, 0xC0000005 */
#else
        /* The default action, not a sanitizer's SIGSEGV handler (which would exit 1). */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
        return 1;
#endif
    }
    return 2;
}
