/* A stand-in for Windows CPython 3.12 in the Windows end-to-end tests under Wine, where no real
 * Windows CPython can be had offline. It answers aitk-env's interpreter probe (`-E -s -c
 * <probe>`) as CPython 3.12.1 (win32, AMD64) living in its own folder would, and exits 0 for
 * anything else. It runs no Python code: what needs a real interpreter (the smoke import,
 * bytecode compilation, a PEP 517 build) is not tested through it, and the tests say so. */
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* JSON string escaping of a UTF-16 path, as UTF-8 with \\ doubled. */
static void put_json_path(const wchar_t* path) {
    char utf8[4 * MAX_PATH];
    int n = WideCharToMultiByte(CP_UTF8, 0, path, -1, utf8, (int)sizeof utf8, NULL, NULL);
    putchar('"');
    for (int i = 0; n > 0 && utf8[i]; ++i) {
        if (utf8[i] == '\\' || utf8[i] == '"') putchar('\\');
        putchar(utf8[i]);
    }
    putchar('"');
}

int wmain(int argc, wchar_t** argv) {
    int probe = 0;
    for (int i = 1; i + 1 < argc; ++i) {
        if (wcscmp(argv[i], L"-c") == 0 && wcsstr(argv[i + 1], L"aitk-python-probe")) probe = 1;
    }
    if (!probe) return 0;

    wchar_t exe[MAX_PATH], home[MAX_PATH], site[MAX_PATH + 32], scripts[MAX_PATH + 32],
        include[MAX_PATH + 32];
    GetModuleFileNameW(NULL, exe, MAX_PATH);
    wcscpy(home, exe);
    wchar_t* slash = wcsrchr(home, L'\\');
    if (slash) *slash = 0;
    swprintf(site, MAX_PATH + 32, L"%ls\\Lib\\site-packages", home);
    swprintf(scripts, MAX_PATH + 32, L"%ls\\Scripts", home);
    swprintf(include, MAX_PATH + 32, L"%ls\\Include", home);

    printf("aitk-python-probe\n{\"base_prefix\": ");
    put_json_path(home);
    printf(", \"executable\": ");
    put_json_path(exe);
    printf(", \"free_threaded\": false, \"implementation\": \"CPython\", \"is_64bit\": true, "
           "\"libc\": [\"\", \"\"], \"machine\": \"AMD64\", \"markers\": {"
           "\"implementation_name\": \"cpython\", \"implementation_version\": \"3.12.1\", "
           "\"os_name\": \"nt\", \"platform_machine\": \"AMD64\", \"platform_python_implementation\": "
           "\"CPython\", \"platform_release\": \"10\", \"platform_system\": \"Windows\", "
           "\"platform_version\": \"10.0.19045\", \"python_full_version\": \"3.12.1\", "
           "\"python_version\": \"3.12\", \"sys_platform\": \"win32\"}, \"paths\": {\"include\": ");
    put_json_path(include);
    printf(", \"platlib\": ");
    put_json_path(site);
    printf(", \"purelib\": ");
    put_json_path(site);
    printf(", \"scripts\": ");
    put_json_path(scripts);
    printf("}, \"prefix\": ");
    put_json_path(home);
    printf(", \"sys_platform\": \"win32\", \"version\": \"3.12.1\"}\n");
    return 0;
}
