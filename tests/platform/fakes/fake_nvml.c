/* A fake NVML (libnvidia-ml.so.1) for the platform tests: the functions aitk-env calls, answering
 * from a config (see fake_config.h). Return codes follow nvml.h's nvmlReturn_t. */
#include <stdio.h>
#include <string.h>

#include "fake_config.h"

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef struct fake_gpu* nvmlDevice_t;
typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

static const int self_marker = 0;
static int initialised = 0;

static const struct fake_config* config(void) {
    return fake_config_get("AITK_FAKE_NVML_CONFIG", &self_marker);
}

static int copy_out(const char* text, char* buffer, unsigned int length) {
    size_t n = strlen(text);
    if (!buffer) return NVML_ERROR_INVALID_ARGUMENT;
    if (n + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buffer, text, n + 1);
    return NVML_SUCCESS;
}

int nvmlInit_v2(void) {
    const struct fake_config* c = config();
    fake_log(c, "nvmlInit_v2");
    if (c->init_sleep_ms > 0) fake_sleep_ms(c->init_sleep_ms);
    if (c->init_result != NVML_SUCCESS) return c->init_result;
    initialised = 1;
    return NVML_SUCCESS;
}

int nvmlShutdown(void) {
    fake_log(config(), "nvmlShutdown");
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    initialised = 0;
    return NVML_SUCCESS;
}

const char* nvmlErrorString(int result) {
    switch (result) {
        case 0:
            return "Success";
        case 9:
            return "Driver Not Loaded";
        case 15:
            return "GPU is lost";
        case 18:
            return "RM has detected an NVML/RM version mismatch.";
        default:
            return "Unknown Error";
    }
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    fake_log(config(), "nvmlSystemGetDriverVersion");
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (length < 80) return NVML_ERROR_INSUFFICIENT_SIZE; /* aitk-env must pass the documented 80 */
    return copy_out(config()->driver, version, length);
}

int nvmlSystemGetCudaDriverVersion_v2(int* cuda) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (!config()->cuda) return NVML_ERROR_NOT_SUPPORTED;
    *cuda = config()->cuda;
    return NVML_SUCCESS;
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    *count = (unsigned int)config()->gpu_count;
    return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
    const struct fake_config* c = config();
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (index >= (unsigned int)c->gpu_count) return NVML_ERROR_INVALID_ARGUMENT;
    if (c->gpus[index].handle_result) return c->gpus[index].handle_result;
    *device = (nvmlDevice_t)&c->gpus[index];
    return NVML_SUCCESS;
}

int nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (length < 96) return NVML_ERROR_INSUFFICIENT_SIZE;
    return copy_out(device->name, name, length);
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    memory->total = device->memory_mib * 1024ull * 1024ull;
    memory->used = 0;
    memory->free = memory->total;
    return NVML_SUCCESS;
}

int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (device->cc_major < 0) return NVML_ERROR_NOT_SUPPORTED;
    *major = device->cc_major;
    *minor = device->cc_minor;
    return NVML_SUCCESS;
}
