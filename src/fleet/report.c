/*
 * report.c: summary, JSON report and /proc readings (see report.h).
 */
#include "src/fleet/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/rw.h"
#include "proto/kjson.h"

/* ==== /proc ==== */

static bool proc_cpu(const char *dir, double *cpu_s)
{
    char path[64], buf[1024], *p;
    unsigned long long utime, stime;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "%s/stat", dir);
    if ((f = fopen(path, "r")) == NULL)
        return false;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Fields after the command's closing parenthesis: state is field 3,
     * utime 14 and stime 15 (proc(5)). */
    if ((p = strrchr(buf, ')')) == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
               &utime, &stime) != 2)
        return false;
    *cpu_s = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    return true;
}

static bool proc_memory(const char *dir, uint64_t *rss, uint64_t *peak)
{
    char path[64], line[256];
    unsigned long long kb;
    int found = 0;
    FILE *f;

    snprintf(path, sizeof(path), "%s/status", dir);
    if ((f = fopen(path, "r")) == NULL)
        return false;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "VmRSS: %llu kB", &kb) == 1) {
            *rss = kb * 1024;
            found++;
        } else if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) {
            *peak = kb * 1024;
            found++;
        }
    }
    fclose(f);
    return found == 2;
}

int report_proc_sample(long pid, struct proc_sample *out)
{
    char dir[32];

    memset(out, 0, sizeof(*out));
    if (pid > 0)
        snprintf(dir, sizeof(dir), "/proc/%ld", pid);
    else
        snprintf(dir, sizeof(dir), "/proc/self");
    if (!proc_cpu(dir, &out->cpu_s) ||
        !proc_memory(dir, &out->rss_bytes, &out->rss_peak_bytes))
        return RW_ENOTFOUND;
    out->ok = true;
    return 0;
}

/* ==== verdict ==== */

uint64_t report_count_errors(struct report *r)
{
    const struct watcher_totals *t = &r->t;

    r->errors = t->parse_errors + t->http_errors + t->transport_errors +
                t->unexpected + t->wrong_type + t->error_events +
                t->bookmark_regressions + t->view_anomalies + r->writes_failed +
                r->oracle_failed + r->final_state_failed +
                (r->verified && !r->drained);
    return r->errors;
}

bool report_passed(const struct report *r)
{
    return !r->interrupted && r->t.lost == 0 && r->t.duplicated == 0 &&
           r->t.out_of_order == 0 && r->t.mismatched_views == 0 &&
           r->errors == 0;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static double report_rate(const struct report *r)
{
    return r->elapsed_s > 0 ? (double)r->t.delivered / r->elapsed_s : 0;
}

static double report_relevant_rate(const struct report *r)
{
    return r->elapsed_s > 0 ? (double)r->t.relevant / r->elapsed_s : 0;
}

/* ==== summary ==== */

/* The setup, writes, deliveries and latency lines. */
static void report_summary_load(FILE *out, const struct report *r)
{
    const struct histogram *h = r->latency;
    const struct watcher_totals *t = &r->t;

    fprintf(out,
            "ringwatch-fleet: %llu %s watchers of %s over %llu "
            "connection%s%s%s%s%s, %.1f s\n",
            (unsigned long long)r->watchers, r->protocol, r->resource,
            (unsigned long long)r->connections, r->connections == 1 ? "" : "s",
            r->label_selector ? ", labelSelector " : "",
            r->label_selector ? r->label_selector : "",
            r->field_selector ? ", fieldSelector " : "",
            r->field_selector ? r->field_selector : "", r->elapsed_s);
    fprintf(out,
            "  profile     %s (%llu controllers, %llu kubelets, %llu nodes), "
            "target %s\n",
            r->profile ? r->profile : "controller",
            (unsigned long long)r->controllers, (unsigned long long)r->kubelets,
            (unsigned long long)r->nodes, r->target ? r->target : "ringwatch");
    fprintf(out, "  writes      %llu acknowledged, %llu failed, via %s\n",
            (unsigned long long)r->writes, (unsigned long long)r->writes_failed,
            r->write_via ? r->write_via : "store");
    if (r->write_latency && r->write_latency->count)
        fprintf(out,
                "  write       p50 %.3f ms, p99 %.3f ms to the response; "
                "p50 %.3f ms, p99 %.3f ms to the first watcher\n",
                ms(histogram_quantile(r->write_latency, 0.5)),
                ms(histogram_quantile(r->write_latency, 0.99)),
                ms(histogram_quantile(r->first_latency, 0.5)),
                ms(histogram_quantile(r->first_latency, 0.99)));
    if (r->write_requests)
        fprintf(out,
                "  conflicts   %llu of %llu requests (%.1f%%), %llu re-reads, "
                "%llu updates given up (%llu writers per update)\n",
                (unsigned long long)r->conflicts,
                (unsigned long long)r->write_requests,
                100.0 * (double)r->conflicts / (double)r->write_requests,
                (unsigned long long)r->rereads, (unsigned long long)r->gave_up,
                (unsigned long long)r->contention);
    if (r->churn)
        fprintf(
            out,
            "  churn       %llu creates (%llu initial), %llu updates, "
            "%llu moves, %llu deletes; %llu pods live\n",
            (unsigned long long)r->creates, (unsigned long long)r->initial_pods,
            (unsigned long long)r->updates, (unsigned long long)r->moves,
            (unsigned long long)r->deletes, (unsigned long long)r->live_pods);
    fprintf(out,
            "  delivered   %llu events (%.0f/s), relevant %llu (%.0f/s): "
            "ADDED %llu, MODIFIED %llu, DELETED %llu; expected %llu\n",
            (unsigned long long)t->delivered, report_rate(r),
            (unsigned long long)t->relevant, report_relevant_rate(r),
            (unsigned long long)t->events[0], (unsigned long long)t->events[1],
            (unsigned long long)t->events[2], (unsigned long long)r->expected);
    fprintf(out,
            "  latency     p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, "
            "max %.3f ms (%llu samples)\n",
            ms(histogram_quantile(h, 0.5)), ms(histogram_quantile(h, 0.9)),
            ms(histogram_quantile(h, 0.99)), ms(h->count ? h->max : 0),
            (unsigned long long)h->count);
}

void report_summary(FILE *out, const struct report *r)
{
    const struct watcher_totals *t = &r->t;

    report_summary_load(out, r);
    fprintf(out,
            "  checks      lost %llu, duplicated %llu, out of order "
            "%llu, mismatched views %llu, errors %llu%s\n",
            (unsigned long long)t->lost, (unsigned long long)t->duplicated,
            (unsigned long long)t->out_of_order,
            (unsigned long long)t->mismatched_views,
            (unsigned long long)r->errors,
            r->verified ? "" : " (not verified against etcd)");
    fprintf(out,
            "  watch       410s %llu, relists %llu, re-watches %llu, "
            "bookmarks %llu, unverified %llu, failed streams %llu, "
            "terminated %llu\n",
            (unsigned long long)t->expired_410, (unsigned long long)t->relists,
            (unsigned long long)t->rewatches, (unsigned long long)t->bookmarks,
            (unsigned long long)t->unverified,
            (unsigned long long)t->watch_failures,
            (unsigned long long)t->terminated);
    if (r->fleet.ok)
        fprintf(out,
                "  fleet       CPU %.2f s, RSS %.1f MiB (peak %.1f MiB), %.0f "
                "bytes of state per watcher\n",
                r->fleet.cpu_s, (double)r->fleet.rss_bytes / 1048576,
                (double)r->fleet.rss_peak_bytes / 1048576,
                r->watchers ? (double)r->watcher_bytes / (double)r->watchers
                            : 0);
    if (r->has_server)
        fprintf(out,
                "  server      pid %ld: CPU %.2f s, RSS %.1f MiB "
                "(peak %.1f MiB)\n",
                r->server_pid, r->server_cpu_s,
                (double)r->server.rss_bytes / 1048576,
                (double)r->server.rss_peak_bytes / 1048576);
    fprintf(out, "  result      %s\n", report_passed(r) ? "PASS" : "FAIL");
}

/* ==== JSON ==== */

/* s as a quoted JSON string (kjson_escape's rules), or null. */
static void json_string(FILE *f, const char *s)
{
    char *e;

    if (s == NULL) {
        fputs("null", f);
        return;
    }
    e = kjson_escape(s);
    fprintf(f, "\"%s\"", e);
    free(e);
}

#define U(x) ((unsigned long long)(x))

static void json_counts(FILE *f, const struct report *r)
{
    const struct watcher_totals *t = &r->t;

    fprintf(f, "  \"writes\": %llu,\n  \"writes_failed\": %llu,\n",
            U(r->writes), U(r->writes_failed));
    fprintf(f,
            "  \"delivered\": %llu,\n  \"deliveries_per_s\": %.1f,\n"
            "  \"relevant\": %llu,\n  \"relevant_per_s\": %.1f,\n"
            "  \"expected\": %llu,\n",
            U(t->delivered), report_rate(r), U(t->relevant),
            report_relevant_rate(r), U(r->expected));
    fprintf(f,
            "  \"events\": {\"ADDED\": %llu, \"MODIFIED\": %llu, "
            "\"DELETED\": %llu},\n",
            U(t->events[0]), U(t->events[1]), U(t->events[2]));
    fprintf(f,
            "  \"lost\": %llu,\n  \"duplicated\": %llu,\n"
            "  \"out_of_order\": %llu,\n  \"mismatched_views\": %llu,\n"
            "  \"expired_410\": %llu,\n  \"bookmarks\": %llu,\n"
            "  \"errors\": %llu,\n",
            U(t->lost), U(t->duplicated), U(t->out_of_order),
            U(t->mismatched_views), U(t->expired_410), U(t->bookmarks),
            U(r->errors));
    fprintf(f,
            "  \"error_detail\": {\"parse\": %llu, \"http\": %llu, "
            "\"transport\": %llu, \"unexpected\": %llu, \"wrong_type\": "
            "%llu, \"error_events\": %llu, \"bookmark_regressions\": %llu, "
            "\"view_anomalies\": %llu, \"writes_failed\": %llu, "
            "\"oracle_failed\": %d, \"final_state_failed\": %d, "
            "\"not_drained\": %d},\n",
            U(t->parse_errors), U(t->http_errors), U(t->transport_errors),
            U(t->unexpected), U(t->wrong_type), U(t->error_events),
            U(t->bookmark_regressions), U(t->view_anomalies),
            U(r->writes_failed), r->oracle_failed, r->final_state_failed,
            r->verified && !r->drained);
    fprintf(f,
            "  \"relists\": %llu,\n  \"rewatches\": %llu,\n"
            "  \"unverified\": %llu,\n  \"watch_failures\": %llu,\n"
            "  \"terminated\": %llu,\n  \"lines_scanned\": %llu,\n",
            U(t->relists), U(t->rewatches), U(t->unverified),
            U(t->watch_failures), U(t->terminated), U(t->lines_scanned));
}

static void json_latency(FILE *f, const char *name, const struct histogram *h)
{
    fprintf(f,
            "  \"%s\": {\"count\": %llu, \"p50\": %.3f, "
            "\"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"max\": %.3f, "
            "\"mean\": %.3f},\n",
            name, U(h->count), ms(histogram_quantile(h, 0.5)),
            ms(histogram_quantile(h, 0.9)), ms(histogram_quantile(h, 0.99)),
            ms(histogram_quantile(h, 0.999)), ms(h->count ? h->max : 0),
            histogram_mean(h) / 1e6);
}

int report_write_json(const char *path, const struct report *r)
{
    FILE *f = fopen(path, "w");
    int failed;

    if (f == NULL)
        return RW_EIO;
    fprintf(f, "{\n  \"watchers\": %llu,\n  \"connections\": %llu,\n",
            U(r->watchers), U(r->connections));
    fputs("  \"protocol\": ", f);
    json_string(f, r->protocol);
    fputs(",\n  \"resource\": ", f);
    json_string(f, r->resource);
    fputs(",\n  \"label_selector\": ", f);
    json_string(f, r->label_selector);
    fputs(",\n  \"field_selector\": ", f);
    json_string(f, r->field_selector);
    fputs(",\n  \"profile\": ", f);
    json_string(f, r->profile ? r->profile : "controller");
    fputs(",\n  \"target\": ", f);
    json_string(f, r->target ? r->target : "ringwatch");
    fprintf(f,
            ",\n  \"controllers\": %llu,\n  \"kubelets\": %llu,\n"
            "  \"nodes\": %llu",
            U(r->controllers), U(r->kubelets), U(r->nodes));
    fprintf(f,
            ",\n  \"churn\": {\"enabled\": %s, \"initial_pods\": %llu, "
            "\"live_pods\": %llu, \"creates\": %llu, \"updates\": %llu, "
            "\"moves\": %llu, \"deletes\": %llu}",
            r->churn ? "true" : "false", U(r->initial_pods), U(r->live_pods),
            U(r->creates), U(r->updates), U(r->moves), U(r->deletes));
    fprintf(f, ",\n  \"duration_s\": %.3f,\n  \"elapsed_s\": %.3f,\n",
            r->duration_s, r->elapsed_s);
    json_counts(f, r);
    json_latency(f, "latency_ms", r->latency);
    if (r->write_latency != NULL) {
        json_latency(f, "write_latency_ms", r->write_latency);
        json_latency(f, "first_receipt_ms", r->first_latency);
    }
    fputs("  \"write_via\": ", f);
    json_string(f, r->write_via ? r->write_via : "store");
    fprintf(f,
            ",\n  \"contention\": %llu,\n  \"write_requests\": %llu,\n"
            "  \"conflicts\": %llu,\n  \"conflict_rate\": %.4f,\n"
            "  \"rereads\": %llu,\n  \"gave_up\": %llu,\n",
            U(r->contention), U(r->write_requests), U(r->conflicts),
            r->write_requests ? (double)r->conflicts / (double)r->write_requests
                              : 0.0,
            U(r->rereads), U(r->gave_up));
    fprintf(f,
            "  \"verified\": %s,\n  \"drained\": %s,\n"
            "  \"interrupted\": %s,\n  \"passed\": %s,\n",
            r->verified ? "true" : "false", r->drained ? "true" : "false",
            r->interrupted ? "true" : "false",
            report_passed(r) ? "true" : "false");
    fprintf(f,
            "  \"fleet\": {\"cpu_s\": %.3f, \"rss_bytes\": %llu, "
            "\"rss_peak_bytes\": %llu, \"watcher_bytes\": %llu}",
            r->fleet.cpu_s, U(r->fleet.rss_bytes), U(r->fleet.rss_peak_bytes),
            U(r->watcher_bytes));
    if (r->has_server)
        fprintf(f,
                ",\n  \"server\": {\"pid\": %ld, \"cpu_s\": %.3f, "
                "\"rss_bytes\": %llu, \"rss_peak_bytes\": %llu}",
                r->server_pid, r->server_cpu_s, U(r->server.rss_bytes),
                U(r->server.rss_peak_bytes));
    fputs("\n}\n", f);
    failed = ferror(f);
    if (fclose(f) != 0 || failed)
        return RW_EIO;
    return 0;
}
