/* A power cut for tests: preloaded into a server process (LD_PRELOAD), it keeps a copy of every
 * file under $TENKA_SHADOW_DIR as it was at its last successful fsync or fdatasync, next to it as
 * `<file>.synced`. After the process is killed, the test puts those copies in place of the files
 * (and deletes files never synced): what a machine that lost power would find on its disk, since
 * only what was synced is sure to be there. The copy is made inside the sync call, while the
 * database still holds its write lock, so no later write slips into it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void keep_synced(int fd) {
    const char *dir = getenv("TENKA_SHADOW_DIR");
    char link[64], path[PATH_MAX], tmp[PATH_MAX + 32], dst[PATH_MAX + 32], buf[65536];
    struct stat st;
    ssize_t n;
    off_t off = 0;
    if (!dir) return;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n < 0) return;
    path[n] = 0;
    if (strncmp(path, dir, strlen(dir)) != 0) return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    pthread_mutex_lock(&lock);
    snprintf(tmp, sizeof tmp, "%s.synced-tmp", path);
    snprintf(dst, sizeof dst, "%s.synced", path);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out >= 0) {
        int ok = 1;
        while ((n = pread(fd, buf, sizeof buf, off)) > 0) {
            if (write(out, buf, (size_t)n) != n) { ok = 0; break; }
            off += n;
        }
        close(out);
        if (ok && n == 0) rename(tmp, dst);
    }
    pthread_mutex_unlock(&lock);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int rc = real(fd);
    if (rc == 0) keep_synced(fd);
    return rc;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int rc = real(fd);
    if (rc == 0) keep_synced(fd);
    return rc;
}
