/*
 * main.c: ringwatch-rawfan, the machine's fan-out limit without a server.
 *
 * Two processes on loopback: this one, the sender (rawfan/sender.h),
 * accepts --connections TCP connections and writes the same pre-encoded
 * ~1.2 KiB Pod watch event (rawfan/chunk.h) to every one of them --rate
 * times a second for --duration seconds; a forked child, the receiver
 * (rawfan/receiver.h), opens those connections, reads them, and times
 * every delivery from the send time inside the event.  The child hands
 * its counters and latency histogram back through a pipe.  The sender's
 * own CPU (getrusage: user + system, over the load) per million
 * deliveries is the baseline a fan-out server is compared with; the
 * kernel's loopback work on a write() is charged to the writer, as it is
 * to a server.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "src/fdlimit.h"
#include "src/log.h"
#include "src/rawfan/chunk.h"
#include "src/rawfan/options.h"
#include "src/rawfan/receiver.h"
#include "src/rawfan/sender.h"

#define RAWFAN_FD_SPARE 64      /* descriptors beyond the connections */
#define RAWFAN_CHILD_GRACE 15.0 /* seconds to wait for the child's report */

struct rawfan {
    struct rawfan_config cfg;
    struct chunk c;
    struct sockaddr_in addr;
    int listen_fd, pipe_fd;
    pid_t child;
    struct event_base *base;
    struct sender_stats ss;
    struct receiver_stats rs; /* zero when the child did not report */
    int have_receiver;
};

/* ==== setup ==== */

/* Raises the descriptor limit and warns when need does not fit. */
static void rawfan_raise_nofile(uint64_t need)
{
    uint64_t limit = fdlimit_raise();

    if (limit < need)
        log_warnx("%llu connections need %llu descriptors; the limit is %llu",
                  (unsigned long long)(need - RAWFAN_FD_SPARE),
                  (unsigned long long)need, (unsigned long long)limit);
}

/* A non-blocking listener on 127.0.0.1 and a port the kernel picks. */
static int rawfan_listen(struct rawfan *rf)
{
    socklen_t len = sizeof(rf->addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return RW_EIO;
    rf->addr.sin_family = AF_INET;
    rf->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rf->addr.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&rf->addr, sizeof(rf->addr)) != 0 ||
        listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&rf->addr, &len) != 0) {
        close(fd);
        return RW_EIO;
    }
    rf->listen_fd = fd;
    return 0;
}

/* ==== the receiver child ==== */

static int rawfan_write_all(int fd, const void *p, size_t n)
{
    const char *b = p;

    while (n > 0) {
        ssize_t k = write(fd, b, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return RW_EIO;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static noreturn void rawfan_child(struct rawfan *rf, int out_fd, pid_t parent)
{
    struct receiver_stats *st = xmalloc(sizeof(*st));
    double deadline =
        rf->cfg.setup_timeout + rf->cfg.duration + rf->cfg.drain_timeout + 5;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    close(rf->listen_fd);
    log_init(log_level_parse(rf->cfg.log_level), "ringwatch-rawfan receiver");
    receiver_run(&rf->addr, &rf->c, rf->cfg.connections, deadline, st);
    _exit(rawfan_write_all(out_fd, st, sizeof(*st)) == 0 ? 0 : 1);
}

/* Reads the child's report, waiting at most timeout_s seconds. */
static void rawfan_collect(struct rawfan *rf, double timeout_s)
{
    char *p = (char *)&rf->rs;
    size_t got = 0;
    struct pollfd pfd = {rf->pipe_fd, POLLIN, 0};
    int status;

    for (int polls = 0; got < sizeof(rf->rs) && polls < 100000; polls++) {
        ssize_t k;

        if (poll(&pfd, 1, (int)(timeout_s * 1000)) <= 0)
            break;
        k = read(rf->pipe_fd, p + got, sizeof(rf->rs) - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    rf->have_receiver = got == sizeof(rf->rs);
    if (!rf->have_receiver) {
        log_warnx("the receiver did not report");
        memset(&rf->rs, 0, sizeof(rf->rs));
        histogram_init(&rf->rs.latency);
        kill(rf->child, SIGKILL);
    }
    waitpid(rf->child, &status, 0);
}

/* ==== report ==== */

static double rawfan_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static uint64_t rawfan_expected(const struct rawfan *rf)
{
    return rf->ss.events * rf->ss.accepted * rf->cfg.batch;
}

static double rawfan_cpu(const struct rawfan *rf)
{
    return rf->ss.cpu_user_s + rf->ss.cpu_sys_s;
}

static double rawfan_per_million(const struct rawfan *rf)
{
    return rf->rs.deliveries ? rawfan_cpu(rf) / (double)rf->rs.deliveries * 1e6
                             : 0;
}

static double rawfan_rate(const struct rawfan *rf)
{
    return rf->ss.elapsed_s > 0 ? (double)rf->rs.deliveries / rf->ss.elapsed_s
                                : 0;
}

static bool rawfan_passed(const struct rawfan *rf)
{
    return rf->ss.ready && rf->have_receiver &&
           rf->rs.deliveries == rawfan_expected(rf) && rf->rs.reordered == 0 &&
           rf->rs.framing == 0 && rf->rs.failed == 0;
}

static void rawfan_summary(FILE *out, const struct rawfan *rf)
{
    const struct histogram *h = &rf->rs.latency;

    fprintf(out,
            "ringwatch-rawfan: %llu connections x %llu records per write, "
            "%llu events/s of %zu bytes, %.1f s\n",
            (unsigned long long)rf->ss.accepted,
            (unsigned long long)rf->cfg.batch, (unsigned long long)rf->cfg.rate,
            rf->c.len, rf->ss.elapsed_s);
    fprintf(out,
            "  events      %llu sent of %llu scheduled; %llu short writes, "
            "%llu dropped connections\n",
            (unsigned long long)rf->ss.events,
            (unsigned long long)rf->ss.scheduled,
            (unsigned long long)rf->ss.short_writes,
            (unsigned long long)rf->ss.dropped);
    fprintf(out,
            "  delivered   %llu (%.0f/s), expected %llu; gaps %llu, "
            "reordered %llu, framing %llu\n",
            (unsigned long long)rf->rs.deliveries, rawfan_rate(rf),
            (unsigned long long)rawfan_expected(rf),
            (unsigned long long)rf->rs.gaps,
            (unsigned long long)rf->rs.reordered,
            (unsigned long long)rf->rs.framing);
    fprintf(out,
            "  latency     p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f "
            "ms\n",
            rawfan_ms(histogram_quantile(h, 0.5)),
            rawfan_ms(histogram_quantile(h, 0.9)),
            rawfan_ms(histogram_quantile(h, 0.99)),
            rawfan_ms(h->count ? h->max : 0));
    fprintf(out,
            "  sender      CPU %.2f s (user %.2f, sys %.2f): %.3f s per "
            "million deliveries; RSS %.1f MiB\n",
            rawfan_cpu(rf), rf->ss.cpu_user_s, rf->ss.cpu_sys_s,
            rawfan_per_million(rf), (double)rf->ss.rss_loaded / 1048576);
    fprintf(out, "  receiver    CPU %.2f s\n", rf->rs.cpu_s);
    fprintf(out, "  result      %s\n", rawfan_passed(rf) ? "PASS" : "FAIL");
}

#define U(x) ((unsigned long long)(x))

static void rawfan_json_sender(FILE *f, const struct rawfan *rf)
{
    const struct sender_stats *s = &rf->ss;

    fprintf(f,
            "  \"sender\": {\"cpu_s\": %.3f, \"cpu_user_s\": %.3f, "
            "\"cpu_sys_s\": %.3f, \"cpu_s_per_million_deliveries\": %.4f, "
            "\"rss_bytes\": %llu, \"rss_before_bytes\": %llu, "
            "\"rss_peak_bytes\": %llu, \"writes\": %llu, "
            "\"short_writes\": %llu, \"queued_events\": %llu, "
            "\"backlog_peak_bytes\": %llu, \"dropped_connections\": %llu, "
            "\"undrained\": %llu},\n",
            rawfan_cpu(rf), s->cpu_user_s, s->cpu_sys_s, rawfan_per_million(rf),
            U(s->rss_loaded), U(s->rss_before), U(s->rss_peak), U(s->writes),
            U(s->short_writes), U(s->queued_events), U(s->backlog_peak),
            U(s->dropped), U(s->undrained));
    fprintf(f,
            "  \"receiver\": {\"reported\": %s, \"connected\": %llu, "
            "\"ended\": %llu, \"failed\": %llu, \"bytes\": %llu, "
            "\"cpu_s\": %.3f},\n",
            rf->have_receiver ? "true" : "false", U(rf->rs.connected),
            U(rf->rs.ended), U(rf->rs.failed), U(rf->rs.bytes), rf->rs.cpu_s);
}

static int rawfan_json(const char *path, const struct rawfan *rf)
{
    const struct histogram *h = &rf->rs.latency;
    uint64_t expected = rawfan_expected(rf);
    FILE *f = fopen(path, "w");
    int failed;

    if (f == NULL)
        return RW_EIO;
    fprintf(f,
            "{\n  \"tool\": \"ringwatch-rawfan\",\n  \"connections\": %llu,\n"
            "  \"batch\": %llu,\n  \"rate\": %llu,\n"
            "  \"duration_s\": %.3f,\n"
            "  \"elapsed_s\": %.3f,\n  \"event_bytes\": %zu,\n",
            U(rf->cfg.connections), U(rf->cfg.batch), U(rf->cfg.rate),
            rf->cfg.duration, rf->ss.elapsed_s, rf->c.len);
    fprintf(f,
            "  \"events\": %llu,\n  \"scheduled\": %llu,\n"
            "  \"expected\": %llu,\n  \"deliveries\": %llu,\n"
            "  \"deliveries_per_s\": %.1f,\n  \"lost\": %llu,\n"
            "  \"gaps\": %llu,\n  \"reordered\": %llu,\n"
            "  \"framing_errors\": %llu,\n",
            U(rf->ss.events), U(rf->ss.scheduled), U(expected),
            U(rf->rs.deliveries), rawfan_rate(rf),
            U(expected > rf->rs.deliveries ? expected - rf->rs.deliveries : 0),
            U(rf->rs.gaps), U(rf->rs.reordered), U(rf->rs.framing));
    fprintf(f,
            "  \"latency_ms\": {\"count\": %llu, \"p50\": %.3f, "
            "\"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"max\": %.3f, "
            "\"mean\": %.3f},\n",
            U(h->count), rawfan_ms(histogram_quantile(h, 0.5)),
            rawfan_ms(histogram_quantile(h, 0.9)),
            rawfan_ms(histogram_quantile(h, 0.99)),
            rawfan_ms(histogram_quantile(h, 0.999)),
            rawfan_ms(h->count ? h->max : 0), histogram_mean(h) / 1e6);
    rawfan_json_sender(f, rf);
    fprintf(f, "  \"passed\": %s\n}\n", rawfan_passed(rf) ? "true" : "false");
    failed = ferror(f);
    if (fclose(f) != 0 || failed)
        return RW_EIO;
    return 0;
}

/* ==== main ==== */

static void rawfan_sender_done_cb(void *arg)
{
    struct rawfan *rf = arg;

    event_base_loopbreak(rf->base);
}

/* Forks the receiver and runs the sender until it is done. */
static void rawfan_run(struct rawfan *rf)
{
    int fds[2];
    pid_t parent = getpid();
    struct sender *s;

    if (pipe2(fds, O_CLOEXEC) != 0)
        log_fatal("pipe");
    if ((rf->child = fork()) < 0)
        log_fatal("fork");
    if (rf->child == 0) {
        close(fds[0]);
        rawfan_child(rf, fds[1], parent);
    }
    close(fds[1]);
    rf->pipe_fd = fds[0];
    rf->base = event_base_new();
    s = sender_new(rf->base, rf->listen_fd, &rf->c,
                   &(struct sender_params){rf->cfg.connections, rf->cfg.rate,
                                           rf->cfg.batch, rf->cfg.duration,
                                           rf->cfg.setup_timeout,
                                           rf->cfg.drain_timeout},
                   rawfan_sender_done_cb, rf);
    event_base_dispatch(rf->base);
    sender_stats(s, &rf->ss);
    sender_free(s);
    close(rf->listen_fd);
    rawfan_collect(rf, rf->cfg.drain_timeout + RAWFAN_CHILD_GRACE);
    close(rf->pipe_fd);
    event_base_free(rf->base);
}

int main(int argc, char **argv)
{
    struct rawfan rf = {0};
    const struct config_program prog = {"ringwatch-rawfan", RAWFAN_SYNOPSIS,
                                        "ringwatch-rawfan " PACKAGE_VERSION,
                                        options_specs, options_nspecs};
    char why[256];
    int status, level;

    if (config_program_parse(&prog, &rf.cfg, argc, argv, &status) != RW_OK)
        return status;
    if (config_log_level(rf.cfg.log_level, &level, why, sizeof(why)) != RW_OK)
        return config_usage_error(&prog, why);
    log_init(level, "ringwatch-rawfan");
    signal(SIGPIPE, SIG_IGN);
    rawfan_raise_nofile(rf.cfg.connections + RAWFAN_FD_SPARE);
    chunk_init(&rf.c, (size_t)rf.cfg.event_bytes);
    if (rawfan_listen(&rf) != 0)
        log_fatal("listen on 127.0.0.1");
    rawfan_run(&rf);
    rawfan_summary(stdout, &rf);
    if (rf.cfg.report && rawfan_json(rf.cfg.report, &rf) != 0)
        log_warn("writing %s", rf.cfg.report);
    chunk_fini(&rf.c);
    return rawfan_passed(&rf) ? 0 : 1;
}
