/* JSON numbers kept exact. cJSON holds every number as a double, so integers
 * past 2^53 (int64 fill values, large attributes) would lose digits. These
 * helpers parse with cJSON, then give each number item its source text in
 * valuestring (cJSON frees it with the item and copies it in
 * cJSON_Duplicate), so integers are read from their digits, and numbers are
 * printed from that text again. Documents are read as RFC 8259 writes them:
 * what readers disagree on is refused (see strict_text, repeats_a_key). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_internal.h"

#define EXACT_DOUBLE_INT 9007199254740992.0 /* 2^53 */

static bool number_start(char c) { return c == '-' || (c >= '0' && c <= '9'); }
static bool number_char(char c) { return number_start(c) || c == '+' || c == '.' || c == 'e' || c == 'E'; }

static bool digits(const char **p, const char *end) {
    const char *start = *p;
    while (*p < end && **p >= '0' && **p <= '9') (*p)++;
    return *p > start;
}

/* RFC 8259's number, the n bytes at s: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool strict_number(const char *s, size_t n) {
    const char *end = s + n;
    if (s < end && *s == '-') s++;
    if (s < end && *s == '0') s++;
    else if (!digits(&s, end)) return false;
    if (s < end && *s == '.' && (s++, !digits(&s, end))) return false;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < end && (*s == '+' || *s == '-')) s++;
        if (!digits(&s, end)) return false;
    }
    return s == end;
}

/* What cJSON takes and other readers do not, or read otherwise: numbers off
 * RFC 8259's grammar (leading zeros: Python refuses them), raw control
 * characters in strings, and \u0000 (cJSON's strings end there, Python's go
 * on). A document holding one is refused rather than read differently. */
static bool strict_text(const char *text, size_t len) {
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (in_string) {
            if (c < 0x20) return false;
            if (c == '"') in_string = false;
            if (c != '\\') continue;
            if (i + 5 < len && text[i + 1] == 'u' && !memcmp(text + i + 2, "0000", 4)) return false;
            i++;
        } else if (c == '"') {
            in_string = true;
        } else if (number_start((char)c)) {
            size_t j = i;
            while (j < len && number_char(text[j])) j++;
            if (!strict_number(text + i, j - i)) return false;
            i = j - 1;
        }
    }
    return true;
}

/* The next number token at or after *at, outside strings; NULL when none is left. */
static const char *next_number(const char *text, size_t len, size_t *at, size_t *n) {
    bool in_string = false;
    for (size_t i = *at; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (number_start(c)) {
            size_t j = i;
            while (j < len && number_char(text[j])) j++;
            *n = j - i;
            *at = j;
            return text + i;
        }
    }
    return NULL;
}

static int by_key(const void *a, const void *b) {
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* An object naming a key twice: readers disagree on which value counts
 * (Python's json takes the last, cJSON the first), so such a document is
 * refused rather than read either way. */
static bool repeats_a_key(const cJSON *object) {
    size_t n = 0;
    for (const cJSON *c = object->child; c; c = c->next) n++;
    if (n < 2) return false;
    const cJSON **keys = malloc(n * sizeof *keys);
    if (!keys) return true; /* out of memory: refused too */
    n = 0;
    for (const cJSON *c = object->child; c; c = c->next) keys[n++] = c;
    qsort(keys, n, sizeof *keys, by_key);
    bool twice = false;
    for (size_t i = 1; i < n && !twice; i++) twice = strcmp(keys[i - 1]->string, keys[i]->string) == 0;
    free(keys);
    return twice;
}

/* Numbers of the tree in document order (cJSON keeps members in order). */
static bool annotate(cJSON *item, const char *text, size_t len, size_t *at) {
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            size_t n;
            const char *tok = next_number(text, len, at, &n);
            if (!tok || item->valuestring) return false;
            item->valuestring = malloc(n + 1);
            if (!item->valuestring) return false;
            memcpy(item->valuestring, tok, n);
            item->valuestring[n] = '\0';
        } else if (cJSON_IsObject(item) && repeats_a_key(item)) {
            return false;
        } else if (item->child && !annotate(item->child, text, len, at)) {
            return false;
        }
    }
    return true;
}

cJSON *ipfsrt_json_parse(const char *text, size_t len, const char **end) {
    const char *stop = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &stop, 0);
    if (end) *end = stop;
    if (!doc) return NULL;
    size_t at = 0, parsed = stop && stop >= text ? (size_t)(stop - text) : len;
    bool trailing = false; /* Python's json refuses "extra data" after the value */
    for (size_t i = parsed; i < len && !trailing; i++) trailing = !strchr(" \t\r\n", text[i]) || !text[i];
    if (trailing || !strict_text(text, parsed) || (cJSON_IsObject(doc) && repeats_a_key(doc)) ||
        !annotate(doc, text, parsed, &at)) {
        /* off the grammar, a key named twice, or out of memory: no number half-annotated is trusted */
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* The digits of an integer literal: sign and magnitude, or false. */
static bool literal_integer(const char *s, bool *negative, uint64_t *magnitude) {
    *negative = *s == '-';
    if (*negative) s++;
    if (!*s) return false;
    uint64_t m = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned digit = (unsigned)(*s - '0');
        if (m > (UINT64_MAX - digit) / 10) return false;
        m = m * 10 + digit;
    }
    *magnitude = m;
    return true;
}

bool ipfsrt_json_integer(const cJSON *item, bool *negative, uint64_t *magnitude) {
    if (!cJSON_IsNumber(item)) return false;
    if (item->valuestring && literal_integer(item->valuestring, negative, magnitude)) return true;
    double d = item->valuedouble; /* 1.0, 1e3: integral values written otherwise, exact below 2^53 */
    if (d != d || d < -EXACT_DOUBLE_INT || d > EXACT_DOUBLE_INT || d != (double)(int64_t)d) return false;
    *negative = d < 0;
    *magnitude = (uint64_t)(d < 0 ? -d : d);
    return true;
}

bool ipfsrt_json_int64(const cJSON *item, int64_t *out) {
    bool negative;
    uint64_t m;
    if (!ipfsrt_json_integer(item, &negative, &m)) return false;
    if (negative ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX) return false;
    *out = negative ? (int64_t)(0 - m) : (int64_t)m;
    return true;
}

/* Marks items turned raw for one print (cJSON reads only the low 8 type bits). */
#define PRINTED_RAW (1 << 12)

/* Numbers parsed from text print as that text (every digit, 1e400, -0; the
 * text is RFC 8259's, strict_text saw to it):
 * turned into raw items for the print, then back. */
static void flip_numbers(cJSON *item, bool to_raw) {
    for (; item; item = item->next) {
        if (!to_raw && (item->type & PRINTED_RAW))
            item->type = (item->type & ~(0xFF | PRINTED_RAW)) | cJSON_Number;
        else if (to_raw && cJSON_IsNumber(item) && item->valuestring)
            item->type = (item->type & ~0xFF) | cJSON_Raw | PRINTED_RAW;
        else if (item->child)
            flip_numbers(item->child, to_raw);
    }
}

/* The document is left as it was: const to callers, changed only while printing. */
char *ipfsrt_json_print(const cJSON *doc, bool pretty) {
    cJSON *d = (cJSON *)(uintptr_t)doc;
    flip_numbers(d, true);
    char *text = pretty ? cJSON_Print(d) : cJSON_PrintUnformatted(d);
    flip_numbers(d, false);
    return text;
}

cJSON *ipfsrt_json_int64_item(int64_t v) {
    if (v >= -(int64_t)EXACT_DOUBLE_INT && v <= (int64_t)EXACT_DOUBLE_INT) return cJSON_CreateNumber((double)v);
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", (long long)v);
    return cJSON_CreateRaw(digits);
}
