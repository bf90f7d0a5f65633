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
