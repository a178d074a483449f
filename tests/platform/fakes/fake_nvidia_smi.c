/* A fake nvidia-smi for the platform tests. It prints recorded outputs and imitates the real
 * tool's failure modes, chosen through the environment:
 *   AITK_FAKE_SMI_OUTPUT       file printed for the query with compute_cap
 *   AITK_FAKE_SMI_OUTPUT_NO_CC file printed for the query without compute_cap
 *   AITK_FAKE_SMI_MODE         ok (default) | old-driver | no-devices | driver-failure | hang
 *   AITK_FAKE_SMI_ARGS_LOG     file that receives each run's arguments, one run a line */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

static void print_file(const char* path) {
    char buffer[4096];
    size_t n;
    FILE* f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "fake nvidia-smi: cannot open %s\n", path ? path : "(unset)");
        exit(70);
    }
    while ((n = fread(buffer, 1, sizeof buffer, f)) > 0)
        fwrite(buffer, 1, n, stdout);
    fclose(f);
}

int main(int argc, char** argv) {
    const char* mode = getenv("AITK_FAKE_SMI_MODE");
    const char* log = getenv("AITK_FAKE_SMI_ARGS_LOG");
    int with_cc = 0;
    int i;
    if (!mode) mode = "ok";
    if (log) {
        FILE* f = fopen(log, "ab"); /* binary: the same bytes on Windows */
        if (f) {
            for (i = 1; i < argc; ++i)
                fprintf(f, "%s%s", i > 1 ? " " : "", argv[i]);
            fprintf(f, "\n");
            fclose(f);
        }
    }
    for (i = 1; i < argc; ++i) {
        if (strstr(argv[i], "compute_cap")) with_cc = 1;
    }
    if (!strcmp(mode, "hang")) {
        /* A wedged driver: the tool and a child of it (holding stdout) never finish. */
        printf("partial\n");
        fflush(stdout);
#ifdef _WIN32
        /* A hung tool (its own child as well is POSIX only). */
        Sleep(300 * 1000);
#else
        if (fork() == 0) {
            sleep(300);
            _exit(0);
        }
        sleep(300);
#endif
        return 0;
    }
    if (!strcmp(mode, "no-devices")) {
        printf("No devices were found\n");
        return 6;
    }
    if (!strcmp(mode, "driver-failure")) {
        printf(
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.\n\n");
        return 9;
    }
    if (!strcmp(mode, "old-driver") && with_cc) {
        printf("Field \"compute_cap\" is not a valid field to query.\n\n");
        return 2;
    }
    print_file(getenv(with_cc ? "AITK_FAKE_SMI_OUTPUT" : "AITK_FAKE_SMI_OUTPUT_NO_CC"));
    return 0;
}
