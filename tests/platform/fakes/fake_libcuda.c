/* A fake libcuda (libcuda.so.1) for the platform tests: the CUDA driver API calls aitk-env's
 * child probe makes, answering from a config (see fake_config.h). Like the real one, cuInit
 * fails with CUDA_ERROR_NO_DEVICE on an empty or invalid CUDA_VISIBLE_DEVICES when
 * honour_visible_devices=1. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fake_config.h"

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101

static const int self_marker = 0;
static int initialised = 0;

static const struct fake_config* config(void) {
    return fake_config_get("AITK_FAKE_LIBCUDA_CONFIG", &self_marker);
}

static int visible_devices_valid(void) {
    const char* v = getenv("CUDA_VISIBLE_DEVICES");
    const char* p;
    if (!v) return 1;
    if (!*v) return 0;
    for (p = v; *p; ++p) {
        if ((*p < '0' || *p > '9') && *p != ',') return 0;
    }
    return 1;
}

int cuDriverGetVersion(int* version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = config()->cuda;
    return CUDA_SUCCESS;
}

int cuInit(unsigned int flags) {
    const struct fake_config* c = config();
    fake_log(c, "cuInit");
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (c->crash_in_init) {
        /* A driver crash kills the process even when a sanitizer installed its own handler. */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (c->init_sleep_ms > 0) fake_sleep_ms(c->init_sleep_ms);
    if (c->honour_visible_devices && !visible_devices_valid()) return CUDA_ERROR_NO_DEVICE;
    if (c->init_result) return c->init_result;
    initialised = 1;
    return CUDA_SUCCESS;
}

int cuDeviceGetCount(int* count) {
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    *count = config()->gpu_count;
    return CUDA_SUCCESS;
}

int cuDeviceGet(int* device, int ordinal) {
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= config()->gpu_count) return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

int cuDeviceGetAttribute(int* value, int attribute, int device) {
    const struct fake_config* c = config();
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= c->gpu_count) return CUDA_ERROR_INVALID_DEVICE;
    if (c->gpus[device].cc_major < 0) return CUDA_ERROR_INVALID_VALUE;
    if (attribute == 75)
        *value = c->gpus[device].cc_major;
    else if (attribute == 76)
        *value = c->gpus[device].cc_minor;
    else
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

int cuDeviceGetName(char* name, int length, int device) {
    const struct fake_config* c = config();
    size_t n;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= c->gpu_count || length <= 0) return CUDA_ERROR_INVALID_VALUE;
    n = strlen(c->gpus[device].name);
    if (n >= (size_t)length) n = (size_t)length - 1;
    memcpy(name, c->gpus[device].name, n);
    name[n] = '\0';
    return CUDA_SUCCESS;
}

int cuDeviceTotalMem_v2(size_t* bytes, int device) {
    const struct fake_config* c = config();
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= c->gpu_count) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = (size_t)(c->gpus[device].memory_mib * 1024ull * 1024ull);
    return CUDA_SUCCESS;
}

int cuGetErrorName(int error, const char** name) {
    switch (error) {
        case CUDA_SUCCESS:
            *name = "CUDA_SUCCESS";
            return CUDA_SUCCESS;
        case CUDA_ERROR_NO_DEVICE:
            *name = "CUDA_ERROR_NO_DEVICE";
            return CUDA_SUCCESS;
        case CUDA_ERROR_NOT_INITIALIZED:
            *name = "CUDA_ERROR_NOT_INITIALIZED";
            return CUDA_SUCCESS;
        default:
            *name = NULL;
            return CUDA_ERROR_INVALID_VALUE;
    }
}
