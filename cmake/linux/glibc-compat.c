/* lib/glibc-compat.o of the static Linux dependencies (.ci/linux-deps compiles it into the prefix;
   cmake/linux/static-deps.toolchain.cmake links it into every executable).

   Why: the portable aitk-env is built on Debian 12 (glibc 2.36) but must start on glibc 2.34
   (Ubuntu 22.04, RHEL 9). Its own code and the static dependencies ask for nothing newer, but
   Debian 12's GCC 12 runtime, linked in with -static-libstdc++ -static-libgcc, does:
     - libstdc++.a (random.o, i.e. std::random_device, which comes along with any use of
       std::runtime_error) calls arc4random, new in GLIBC_2.36;
     - libgcc_eh.a's unwinder (every thrown exception) calls _dl_find_object, new in GLIBC_2.35.
   Defining those functions in the executable itself satisfies the references before the dynamic
   linker is asked, so no GLIBC_2.35/2.36 version ends up in the binary.

   It has to be linked as an object file, not put in an archive: the linker searches an archive
   only for symbols that are undefined at that moment, and these references only appear once
   libstdc++.a and libgcc_eh.a are read, which happens after all of the program's libraries. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

/* Random bytes from the kernel: getrandom(2) (glibc 2.25), and /dev/urandom where the syscall is
   missing (old kernels, some sandboxes). No source of randomness at all is a hard error: callers
   rely on the bytes being unpredictable, so returning anything else would be worse than abort. */
void arc4random_buf(void* buf, size_t n) {
    unsigned char* p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
            if (fd < 0) abort();
            while (n > 0) {
                got = read(fd, p, n);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) abort();
                p += got;
                n -= (size_t)got;
            }
            close(fd);
            return;
        }
        p += got;
        n -= (size_t)got;
    }
}

uint32_t arc4random(void) {
    uint32_t v;
    arc4random_buf(&v, sizeof v);
    return v;
}

/* Uniform in [0, upper): values below 2^32 mod upper are drawn again, so that each residue is
   hit by the same number of 32-bit values (a plain r % upper would favour the small ones). */
uint32_t arc4random_uniform(uint32_t upper) {
    if (upper < 2) return 0;
    uint32_t min = -upper % upper;
    for (;;) {
        uint32_t r = arc4random();
        if (r >= min) return r % upper;
    }
}

/* _dl_find_object(address, result): which loaded object (executable or shared library) maps
   ADDRESS, the span of its PT_LOAD segments, and where its PT_GNU_EH_FRAME segment (the unwind
   table index) lies. glibc 2.35 made this a fast lookup; before that libgcc found the same by
   walking the loaded objects with dl_iterate_phdr, which is what this does. Only the fields the
   unwinder reads on these targets are filled in. */
#if DLFO_STRUCT_HAS_EH_DBASE
/* Targets with a data base for unwind info (i386, nios2) need dlfo_eh_dbase too. */
#error \
    "glibc-compat.c only fills struct dl_find_object for targets without dlfo_eh_dbase (x86_64, aarch64)"
#endif
struct find_data {
    uintptr_t address;
    struct dl_find_object* result;
    int found;
};

static int find_callback(struct dl_phdr_info* info, size_t size, void* arg) {
    struct find_data* d = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    const ElfW(Phdr)* eh = NULL;
    int inside = 0;
    (void)size;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
            if (start < lo) lo = start;
            if (end > hi) hi = end;
            if (d->address >= start && d->address < end) inside = 1;
        } else if (ph->p_type == DLFO_EH_SEGMENT_TYPE) {
            eh = ph;
        }
    }
    if (!inside) return 0; /* not this object: keep walking */
    d->result->dlfo_flags = 0;
    d->result->dlfo_map_start = (void*)lo;
    d->result->dlfo_map_end = (void*)hi;
    d->result->dlfo_link_map = NULL;
    d->result->dlfo_eh_frame = eh ? (void*)(info->dlpi_addr + eh->p_vaddr) : NULL;
    d->found = 1;
    return 1; /* found: stop the walk */
}

/* 0 and *RESULT filled in when an object maps ADDRESS, else -1 (as glibc's). */
int _dl_find_object(void* address, struct dl_find_object* result) {
    struct find_data d = {(uintptr_t)address, result, 0};
    dl_iterate_phdr(find_callback, &d);
    return d.found ? 0 : -1;
}
