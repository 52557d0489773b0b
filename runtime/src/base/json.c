/* JSON numbers kept exact. cJSON holds every number as a double, so integers
 * past 2^53 (int64 fill values, large attributes) would lose digits. These
 * helpers parse with cJSON, then give each number item its source text in
 * valuestring (cJSON frees it with the item and copies it in
 * cJSON_Duplicate), so integers are read from their digits; and print
 * integral numbers that a double cannot hold from those digits again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_internal.h"

#define EXACT_DOUBLE_INT 9007199254740992.0 /* 2^53 */

static bool number_start(char c) { return c == '-' || (c >= '0' && c <= '9'); }
static bool number_char(char c) { return number_start(c) || c == '+' || c == '.' || c == 'e' || c == 'E'; }

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
    if (!annotate(doc, text, parsed, &at)) { /* out of memory: no number half-annotated is trusted */
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

/* Numbers whose digits a double would change print from their digits: turned
 * into raw items, then back. */
static void flip_big_integers(cJSON *item, bool to_raw) {
    for (; item; item = item->next) {
        bool negative;
        uint64_t m;
        if (!to_raw && (item->type & PRINTED_RAW))
            item->type = (item->type & ~(0xFF | PRINTED_RAW)) | cJSON_Number;
        else if (to_raw && cJSON_IsNumber(item) && item->valuestring &&
                 literal_integer(item->valuestring, &negative, &m) && m > (uint64_t)EXACT_DOUBLE_INT)
            item->type = (item->type & ~0xFF) | cJSON_Raw | PRINTED_RAW;
        else if (item->child)
            flip_big_integers(item->child, to_raw);
    }
}

/* The document is left as it was: const to callers, changed only while printing. */
char *ipfsrt_json_print(const cJSON *doc, bool pretty) {
    cJSON *d = (cJSON *)(uintptr_t)doc;
    flip_big_integers(d, true);
    char *text = pretty ? cJSON_Print(d) : cJSON_PrintUnformatted(d);
    flip_big_integers(d, false);
    return text;
}

cJSON *ipfsrt_json_int64_item(int64_t v) {
    if (v >= -(int64_t)EXACT_DOUBLE_INT && v <= (int64_t)EXACT_DOUBLE_INT) return cJSON_CreateNumber((double)v);
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", (long long)v);
    return cJSON_CreateRaw(digits);
}
