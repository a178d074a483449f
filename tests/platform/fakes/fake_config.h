/* Configuration of the fake NVIDIA libraries the platform tests load through the real dlopen
 * path. A fake reads "key=value" lines from the file named by its environment variable, else
 * from "<its own path>.conf" (so a test copies the library into a folder with a config beside
 * it). Unknown keys are ignored; `gpu` may repeat. */
#ifndef AITK_FAKE_CONFIG_H
#define AITK_FAKE_CONFIG_H

#define FAKE_MAX_GPUS 16
#define FAKE_TEXT 128

struct fake_gpu {
    char name[FAKE_TEXT];
    unsigned long long memory_mib;
    int cc_major; /* -1: the capability query fails */
    int cc_minor;
    int handle_result; /* returned by the per-device handle query */
};

struct fake_config {
    int loaded;
    int init_result;
    long init_sleep_ms;
    int crash_in_init;
    char driver[FAKE_TEXT];
    int cuda; /* 1000*major + 10*minor; 0: the query fails */
    int honour_visible_devices;
    int gpu_count;
    struct fake_gpu gpus[FAKE_MAX_GPUS];
    char log[1024]; /* file that records each call, one name a line */
};

/* Loads once; `env_name` names the variable with an explicit config path; `self` is any
 * function of the calling library (used to find its own path). */
const struct fake_config* fake_config_get(const char* env_name, const void* self);
void fake_log(const struct fake_config* config, const char* call);
void fake_sleep_ms(long ms);

#endif
