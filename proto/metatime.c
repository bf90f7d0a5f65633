/*
 * metatime.c: metav1.Time as the Table printers read and show it (see
 * metatime.h): RFC 3339 to seconds since the epoch, and
 * duration.HumanDuration.  No clock is read here: "now" is the caller's.
 */
#include "proto/metatime.h"

#include <stdio.h>
#include <string.h>

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool digits(const char *s, int n, int *out)
{
    *out = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *out = *out * 10 + (s[i] - '0');
    }
    return true;
}

/* Seconds from 1970 to Go's zero time.Time, 0001-01-01T00:00:00Z. */
#define GO_ZERO_TIME (-62135596800LL)

bool metatime_parse(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se, oh, om;
    const char *p = s + 19;

    if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' ||
        (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
        return false;
    if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
        !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) ||
        !digits(s + 17, 2, &se) || mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    if ((*p == 'Z' || *p == 'z') && p[1] == '\0')
        return *out != GO_ZERO_TIME;
    if ((*p != '+' && *p != '-') || strlen(p) != 6 || p[3] != ':' ||
        !digits(p + 1, 2, &oh) || !digits(p + 4, 2, &om))
        return false;
    *out -= (*p == '+' ? 1 : -1) * (int64_t)(oh * 3600 + om * 60);
    return *out != GO_ZERO_TIME;
}

void metatime_human_duration(char *buf, size_t size, int64_t s)
{
    int64_t m = s / 60, h = s / 3600;

    if (s < -1)
        snprintf(buf, size, "<invalid>");
    else if (s < 0)
        snprintf(buf, size, "0s");
    else if (s < 120)
        snprintf(buf, size, "%llds", (long long)s);
    else if (m < 10 && s % 60 != 0)
        snprintf(buf, size, "%lldm%llds", (long long)m, (long long)(s % 60));
    else if (m < 180)
        snprintf(buf, size, "%lldm", (long long)m);
    else if (h < 8 && m % 60 != 0)
        snprintf(buf, size, "%lldh%lldm", (long long)h, (long long)(m % 60));
    else if (h < 48)
        snprintf(buf, size, "%lldh", (long long)h);
    else if (h < 24 * 8 && h % 24 != 0)
        snprintf(buf, size, "%lldd%lldh", (long long)(h / 24),
                 (long long)(h % 24));
    else if (h < 24 * 365 * 2)
        snprintf(buf, size, "%lldd", (long long)(h / 24));
    else if (h < 24 * 365 * 8 && (h / 24) % 365 != 0)
        snprintf(buf, size, "%lldy%lldd", (long long)(h / 24 / 365),
                 (long long)((h / 24) % 365));
    else
        snprintf(buf, size, "%lldy", (long long)(h / 24 / 365));
}

void metatime_since(char *buf, size_t size, const char *timestamp, time_t now)
{
    int64_t t;

    if (!metatime_parse(timestamp, &t))
        snprintf(buf, size, "<unknown>");
    else
        metatime_human_duration(buf, size, (int64_t)now - t);
}
