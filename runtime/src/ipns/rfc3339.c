/* RFC 3339 times, as IPNS records write their EOL: parsed with any offset and
 * up to nine fractional digits, written in UTC with nine. Calendar arithmetic
 * by hand (days from civil dates), never the process's time zone. */
#include <stdio.h>
#include <string.h>

#include "ipns/ipns_internal.h"

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* n decimal digits at s, as a number; false when one is not a digit. */
static bool digits(const char *s, size_t n, unsigned *out) {
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return true;
}

static bool is_leap(unsigned y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static unsigned month_days(unsigned y, unsigned m) {
    static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* The fraction after the seconds ("." and 1-9 digits), as nanoseconds; *i moves past it. */
static bool fraction(const char *s, size_t len, size_t *i, uint32_t *nanos) {
    *nanos = 0;
    if (*i >= len || s[*i] != '.') return true;
    size_t start = ++*i, n = 0;
    uint32_t v = 0;
    for (; *i < len && s[*i] >= '0' && s[*i] <= '9'; ++*i, n++)
        if (n < 9) v = v * 10 + (uint32_t)(s[*i] - '0');
    if (*i == start) return false; /* digits past the ninth are read and dropped */
    for (; n < 9; n++) v *= 10;
    *nanos = v;
    return true;
}

/* "Z", or "+HH:MM" / "-HH:MM", as seconds east of UTC. */
static bool offset(const char *s, size_t len, size_t i, int64_t *east) {
    if (i + 1 == len && (s[i] == 'Z' || s[i] == 'z')) {
        *east = 0;
        return true;
    }
    unsigned hh, mm;
    if (i + 6 != len || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':' || !digits(s + i + 1, 2, &hh) ||
        !digits(s + i + 4, 2, &mm) || hh > 23 || mm > 59)
        return false;
    *east = (s[i] == '-' ? -1 : 1) * (int64_t)(hh * 3600 + mm * 60);
    return true;
}

bool ipfsrt_rfc3339_parse(const char *s, size_t len, int64_t *seconds, uint32_t *nanos) {
    unsigned y, mo, d, h, mi, se;
    if (len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' ||
        !digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) || !digits(s + 11, 2, &h) ||
        !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &se))
        return false;
    /* a leap second (:60) is taken as the next second's start */
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || se > 60) return false;
    size_t i = 19;
    int64_t east;
    if (!fraction(s, len, &i, nanos) || !offset(s, len, i, &east)) return false;
    *seconds = days_from_civil(y, mo, d) * 86400 + (int64_t)(h * 3600 + mi * 60 + se) - east;
    return true;
}

bool ipfsrt_rfc3339_format(int64_t seconds, uint32_t nanos, char out[40]) {
    int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
    int64_t rest = seconds - days * 86400, y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 1 || y > 9999 || nanos >= 1000000000u) return false;
    snprintf(out, 40, "%04lld-%02u-%02uT%02u:%02u:%02u.%09uZ", (long long)y, m, d, (unsigned)(rest / 3600),
             (unsigned)(rest / 60 % 60), (unsigned)(rest % 60), (unsigned)nanos);
    return true;
}
