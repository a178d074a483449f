#define _GNU_SOURCE
#include "fake_config.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct fake_config g_config;

static void copy_text(char* dst, const char* src, size_t size) {
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void parse_gpu(const char* value) {
    /* name|memory_mib|major.minor[|handle_result] */
    struct fake_gpu* gpu;
    const char* bar;
    if (g_config.gpu_count >= FAKE_MAX_GPUS) return;
    gpu = &g_config.gpus[g_config.gpu_count++];
    memset(gpu, 0, sizeof *gpu);
    gpu->cc_major = -1;
    bar = strchr(value, '|');
    if (!bar) {
        copy_text(gpu->name, value, sizeof gpu->name);
        return;
    }
    {
        size_t n = (size_t)(bar - value);
        if (n >= sizeof gpu->name) n = sizeof gpu->name - 1;
        memcpy(gpu->name, value, n);
        gpu->name[n] = '\0';
    }
    gpu->memory_mib = strtoull(bar + 1, NULL, 10);
    bar = strchr(bar + 1, '|');
    if (!bar) return;
    if (bar[1] != '-') {
        char* end = NULL;
        gpu->cc_major = (int)strtol(bar + 1, &end, 10);
        gpu->cc_minor = (end && *end == '.') ? (int)strtol(end + 1, NULL, 10) : 0;
    }
    bar = strchr(bar + 1, '|');
    if (bar) gpu->handle_result = atoi(bar + 1);
}

static void load(const char* path) {
    char line[512];
    FILE* f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        char* eq;
        char* value;
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (line[0] == '#' || !(eq = strchr(line, '='))) continue;
        *eq = '\0';
        value = eq + 1;
        if (!strcmp(line, "init_result"))
            g_config.init_result = atoi(value);
        else if (!strcmp(line, "init_sleep_ms"))
            g_config.init_sleep_ms = atol(value);
        else if (!strcmp(line, "crash_in_init"))
            g_config.crash_in_init = atoi(value);
        else if (!strcmp(line, "driver"))
            copy_text(g_config.driver, value, sizeof g_config.driver);
        else if (!strcmp(line, "cuda"))
            g_config.cuda = atoi(value);
        else if (!strcmp(line, "honour_visible_devices"))
            g_config.honour_visible_devices = atoi(value);
        else if (!strcmp(line, "gpu"))
            parse_gpu(value);
        else if (!strcmp(line, "log"))
            copy_text(g_config.log, value, sizeof g_config.log);
    }
    fclose(f);
}

const struct fake_config* fake_config_get(const char* env_name, const void* self) {
    if (!g_config.loaded) {
        const char* explicit_path = getenv(env_name);
        g_config.loaded = 1;
        if (explicit_path && *explicit_path) {
            load(explicit_path);
        } else {
#ifdef _WIN32
            /* The DLL's own file name, from the module that holds `self`. */
            HMODULE module = NULL;
            char name[4096];
            if (GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                       GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                                   (LPCSTR)self, &module) &&
                GetModuleFileNameA(module, name, sizeof name) > 0) {
                char path[4200];
                snprintf(path, sizeof path, "%s.conf", name);
                load(path);
            }
#else
            Dl_info info;
            if (dladdr(self, &info) && info.dli_fname) {
                char path[4096];
                snprintf(path, sizeof path, "%s.conf", info.dli_fname);
                load(path);
            }
#endif
        }
    }
    return &g_config;
}

void fake_log(const struct fake_config* config, const char* call) {
    FILE* f;
    if (!config->log[0]) return;
    f = fopen(config->log, "ab"); /* binary: the same bytes on Windows */
    if (!f) return;
    fprintf(f, "%s\n", call);
    fclose(f);
}

void fake_sleep_ms(long ms) {
#ifdef _WIN32
    Sleep((DWORD)ms);
#else
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&t, &t) != 0) {
    }
#endif
}
