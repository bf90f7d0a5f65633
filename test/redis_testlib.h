/*
 * redis_testlib.h: a throwaway redis-server on a free loopback port for the
 * tests that talk to a real Redis (test/redis_client_test.c,
 * test/upstream_redis_test.c).  No persistence unless asked; its files
 * live in a temporary directory.  Every wait is bounded.  A test calls
 * rtest_start first: without redis-server installed it exits 77 (skip).
 */
#ifndef REDIS_TESTLIB_H
#define REDIS_TESTLIB_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RTEST_TIMEOUT 10.0 /* seconds any single wait may take */

struct rtest_server {
    pid_t pid;
    uint16_t port;
    char dir[64];
    char password[32]; /* "" when none */
};

/* A port the kernel just gave out on 127.0.0.1 (free a moment ago). */
static inline uint16_t rtest_free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("rtest_free_port");
        exit(99);
    }
    close(fd);
    return ntohs(a.sin_port);
}

/* Sends one inline command on a fresh blocking connection and copies the
 * first line of the answer into out; false when nothing answered. */
static inline bool rtest_ask(uint16_t port, const char *line, char *out,
                             size_t size)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    struct timeval tv = {1, 0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    bool ok = false;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        write(fd, line, strlen(line)) == (ssize_t)strlen(line)) {
        ssize_t n = read(fd, out, size - 1);
        if (n > 0) {
            out[n] = '\0';
            out[strcspn(out, "\r\n")] = '\0';
            ok = true;
        }
    }
    close(fd);
    return ok;
}

static inline double rtest_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts redis-server with password (NULL: none) and extra arguments
 * (NULL-terminated; may be NULL) on s->port, or on a fresh free port when
 * s->port is 0 (a restart keeps its port and directory); waits until it
 * answers PING. */
static inline void rtest_start(struct rtest_server *s, const char *password,
                               const char *const *extra)
{
    if (system("command -v redis-server >/dev/null 2>&1") != 0) {
        fprintf(stderr, "redis-server not installed: skip\n");
        exit(77);
    }
    if (s->dir[0] == '\0') {
        snprintf(s->dir, sizeof(s->dir), "/tmp/rw-redis-test.XXXXXX");
        if (mkdtemp(s->dir) == NULL) {
            perror("mkdtemp");
            exit(99);
        }
    }
    if (s->port == 0)
        s->port = rtest_free_port();
    snprintf(s->password, sizeof(s->password), "%s",
             password != NULL ? password : "");
    char port[8], log[96];
    snprintf(port, sizeof(port), "%u", (unsigned)s->port);
    snprintf(log, sizeof(log), "%s/redis.log", s->dir);
    const char *argv[40] = {"redis-server",
                            "--port",
                            port,
                            "--bind",
                            "127.0.0.1",
                            "--dir",
                            s->dir,
                            "--logfile",
                            log,
                            "--save",
                            "",
                            "--appendonly",
                            "no"};
    int n = 13;
    if (password != NULL) {
        argv[n++] = "--requirepass";
        argv[n++] = password;
    }
    for (int i = 0; extra != NULL && extra[i] != NULL && n < 38; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    s->pid = fork();
    if (s->pid == 0) {
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    double deadline = rtest_now() + RTEST_TIMEOUT;
    char answer[128];
    while (rtest_now() < deadline) {
        if (rtest_ask(s->port, "PING\r\n", answer, sizeof(answer)))
            return;
        usleep(20000);
    }
    fprintf(stderr, "redis-server on port %u did not answer\n", s->port);
    exit(99);
}

/* ---- a blocking RESP client for setting up and checking state ---- */

/* A reply: type '+', '-', ':', '$' (str NULL: nil), '*' (strs: every
 * string of the array, nested arrays flattened, n of them). */
struct rtest_reply {
    char type;
    long long integer;
    char *str;
    size_t len;
    char **strs;
    size_t *lens;
    size_t n;
};

static inline void rtest_reply_fini(struct rtest_reply *r)
{
    free(r->str);
    for (size_t i = 0; i < r->n; i++)
        free(r->strs[i]);
    free(r->strs);
    free(r->lens);
    memset(r, 0, sizeof(*r));
}

/* Reads exactly n bytes (false on EOF or timeout). */
static inline bool rtest_read(int fd, char *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = read(fd, buf, n);
        if (k <= 0)
            return false;
        buf += k;
        n -= (size_t)k;
    }
    return true;
}

static inline bool rtest_line(int fd, char *line, size_t size)
{
    size_t n = 0;
    while (n + 1 < size) {
        if (!rtest_read(fd, line + n, 1))
            return false;
        if (n > 0 && line[n - 1] == '\r' && line[n] == '\n') {
            line[n - 1] = '\0';
            return true;
        }
        n++;
    }
    return false;
}

static inline bool rtest_parse(int fd, struct rtest_reply *r, bool top)
{
    char line[128];
    if (!rtest_line(fd, line, sizeof(line)))
        return false;
    long long v = strtoll(line + 1, NULL, 10);
    if (top)
        r->type = line[0];
    switch (line[0]) {
    case '+':
    case '-':
    case ':':
        if (top) {
            r->integer = v;
            r->str = strdup(line + 1);
            r->len = strlen(line + 1);
        }
        return true;
    case '$': {
        char *s = NULL;
        if (v >= 0) {
            s = malloc((size_t)v + 3);
            if (!rtest_read(fd, s, (size_t)v + 2))
                return false;
            s[v] = '\0';
        }
        if (top) {
            r->str = s;
            r->len = v >= 0 ? (size_t)v : 0;
        } else if (s != NULL) {
            r->strs = realloc(r->strs, (r->n + 1) * sizeof(*r->strs));
            r->lens = realloc(r->lens, (r->n + 1) * sizeof(*r->lens));
            r->strs[r->n] = s;
            r->lens[r->n++] = (size_t)v;
        }
        return true;
    }
    case '*':
        for (long long i = 0; i < v; i++)
            if (!rtest_parse(fd, r, false))
                return false;
        return true;
    default:
        return false;
    }
}

/* A connection to s (AUTH when it has a password). */
static inline int rtest_connect(const struct rtest_server *s);

/* Sends argv (C strings) on fd and reads the reply into *r. */
static inline void rtest_call(int fd, struct rtest_reply *r, int argc,
                              const char *const *argv)
{
    char head[32];
    memset(r, 0, sizeof(*r));
    snprintf(head, sizeof(head), "*%d\r\n", argc);
    if (write(fd, head, strlen(head)) < 0)
        exit(99);
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]);
        snprintf(head, sizeof(head), "$%zu\r\n", n);
        if (write(fd, head, strlen(head)) < 0 || write(fd, argv[i], n) < 0 ||
            write(fd, "\r\n", 2) < 0)
            exit(99);
    }
    if (!rtest_parse(fd, r, true)) {
        fprintf(stderr, "rtest_call %s: no reply\n", argv[0]);
        exit(99);
    }
}

static inline int rtest_connect(const struct rtest_server *s)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(s->port)};
    struct timeval tv = {(time_t)RTEST_TIMEOUT, 0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        perror("rtest_connect");
        exit(99);
    }
    if (s->password[0] != '\0') {
        struct rtest_reply r;
        rtest_call(fd, &r, 2, (const char *const[]){"AUTH", s->password});
        rtest_reply_fini(&r);
    }
    return fd;
}

/* Stops it (TERM, then KILL) and waits for it; keeps the directory. */
static inline void rtest_kill(struct rtest_server *s, int sig)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, sig);
    double deadline = rtest_now() + RTEST_TIMEOUT;
    while (waitpid(s->pid, NULL, WNOHANG) == 0) {
        if (rtest_now() > deadline) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, NULL, 0);
            break;
        }
        usleep(10000);
    }
    s->pid = 0;
}

/* Stops it and removes its directory. */
static inline void rtest_stop(struct rtest_server *s)
{
    char cmd[128];
    rtest_kill(s, SIGTERM);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
    if (s->dir[0] != '\0' && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", s->dir);
    s->dir[0] = '\0';
}

#endif
