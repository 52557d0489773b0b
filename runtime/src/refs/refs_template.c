/* The jinja subset kerchunk references use: {{name}} (a template or a gen
 * dimension), {{name(arg='text', ...)}} (a template filled with arguments)
 * and integer arithmetic over gen's dimensions ({{(i + 1) * 1000}}). Bounded:
 * templates nest at most IPFSRT_REFS_MAX_TEMPLATE_DEPTH deep (a template that
 * names itself is a loop, refused), and what one renders is at most RENDER_MAX
 * bytes (keys, URLs and numbers are short). */
#include <cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "refs/refs.h"

#define RENDER_MAX 65536
#define MAX_ARGS 16

typedef struct renderer {
    const cJSON *templates;
    ipfsrt_error *err;
} renderer;

static ipfsrt_status render(renderer *rd, const char *text, const ipfsrt_refs_var *vars, size_t nvars,
                            unsigned depth, ipfsrt_buf *out);

static const ipfsrt_refs_var *find_var(const ipfsrt_refs_var *vars, size_t nvars, const char *name, size_t len) {
    for (size_t i = 0; i < nvars; i++)
        if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0) return &vars[i];
    return NULL;
}

static const char *template_text(renderer *rd, const char *name, size_t len) {
    char key[128];
    if (len >= sizeof key) return NULL;
    memcpy(key, name, len);
    key[len] = '\0';
    const cJSON *t = rd->templates ? cJSON_GetObjectItemCaseSensitive(rd->templates, key) : NULL;
    return cJSON_IsString(t) ? t->valuestring : NULL;
}

/* ---------------------------------------------------------- arithmetic */

typedef struct expr {
    const char *p, *end;
    const ipfsrt_refs_var *vars;
    size_t nvars;
    renderer *rd;
    const char *text; /* for messages */
} expr;

static void skip_space(expr *e) {
    while (e->p < e->end && isspace((unsigned char)*e->p)) e->p++;
}

static ipfsrt_status bad_expr(expr *e, const char *why) {
    return ipfsrt_fail(e->rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: %s in '{{%.*s}}'", why,
                       (int)(e->end - e->text), e->text);
}

static ipfsrt_status sum(expr *e, int64_t *v, unsigned depth);

static ipfsrt_status name_value(expr *e, int64_t *v) {
    const char *start = e->p;
    while (e->p < e->end && (isalnum((unsigned char)*e->p) || *e->p == '_')) e->p++;
    const ipfsrt_refs_var *var = find_var(e->vars, e->nvars, start, (size_t)(e->p - start));
    if (!var) return bad_expr(e, "an unknown name");
    if (!var->text) {
        *v = var->value;
        return IPFSRT_OK;
    }
    char *stop;
    long long n = strtoll(var->text, &stop, 10);
    if (!*var->text || *stop) return bad_expr(e, "text where a number belongs");
    *v = n;
    return IPFSRT_OK;
}

static ipfsrt_status factor(expr *e, int64_t *v, unsigned depth) {
    skip_space(e);
    if (depth > 64) return bad_expr(e, "too deeply nested parentheses");
    if (e->p >= e->end) return bad_expr(e, "an expression ending early");
    if (*e->p == '-') {
        e->p++;
        ipfsrt_status st = factor(e, v, depth + 1);
        if (st == IPFSRT_OK && __builtin_sub_overflow((int64_t)0, *v, v)) return bad_expr(e, "overflow");
        return st;
    }
    if (*e->p == '(') {
        e->p++;
        ipfsrt_status st = sum(e, v, depth + 1);
        skip_space(e);
        if (st == IPFSRT_OK && (e->p >= e->end || *e->p != ')')) return bad_expr(e, "an unclosed parenthesis");
        e->p++;
        return st;
    }
    if (isdigit((unsigned char)*e->p)) {
        int64_t n = 0;
        for (; e->p < e->end && isdigit((unsigned char)*e->p); e->p++)
            if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *e->p - '0', &n))
                return bad_expr(e, "overflow");
        *v = n;
        return IPFSRT_OK;
    }
    if (isalpha((unsigned char)*e->p) || *e->p == '_') return name_value(e, v);
    return bad_expr(e, "an unexpected character");
}

static ipfsrt_status apply(expr *e, char op, int64_t *acc, int64_t rhs) {
    bool over = false;
    switch (op) {
    case '+': over = __builtin_add_overflow(*acc, rhs, acc); break;
    case '-': over = __builtin_sub_overflow(*acc, rhs, acc); break;
    case '*': over = __builtin_mul_overflow(*acc, rhs, acc); break;
    default:
        if (rhs == 0) return bad_expr(e, "a division by zero");
        if (*acc == INT64_MIN && rhs == -1) return bad_expr(e, "overflow");
        if (op == '/' && *acc % rhs != 0) return bad_expr(e, "a division with a remainder");
        if (op == '%') *acc = (*acc % rhs + rhs) % rhs; /* Python's sign */
        else *acc = *acc / rhs - ((*acc % rhs != 0) && ((*acc < 0) != (rhs < 0))); /* floor */
    }
    return over ? bad_expr(e, "overflow") : IPFSRT_OK;
}

static ipfsrt_status product(expr *e, int64_t *v, unsigned depth) {
    ipfsrt_status st = factor(e, v, depth);
    for (;;) {
        skip_space(e);
        if (st != IPFSRT_OK || e->p >= e->end || !strchr("*/%", *e->p)) return st;
        char op = *e->p++;
        if (op == '/' && e->p < e->end && *e->p == '/') {
            e->p++;
            op = 'f';
        }
        int64_t rhs;
        if ((st = factor(e, &rhs, depth)) == IPFSRT_OK) st = apply(e, op, v, rhs);
    }
}

static ipfsrt_status sum(expr *e, int64_t *v, unsigned depth) {
    ipfsrt_status st = product(e, v, depth);
    for (;;) {
        skip_space(e);
        if (st != IPFSRT_OK || e->p >= e->end || (*e->p != '+' && *e->p != '-')) return st;
        char op = *e->p++;
        int64_t rhs;
        if ((st = product(e, &rhs, depth)) == IPFSRT_OK) st = apply(e, op, v, rhs);
    }
}

static ipfsrt_status arithmetic(renderer *rd, const char *s, size_t len, const ipfsrt_refs_var *vars,
                                size_t nvars, ipfsrt_buf *out) {
    expr e = {s, s + len, vars, nvars, rd, s};
    int64_t v;
    ipfsrt_status st = sum(&e, &v, 0);
    skip_space(&e);
    if (st == IPFSRT_OK && e.p != e.end) return bad_expr(&e, "an unexpected character");
    if (st != IPFSRT_OK) return st;
    char num[24];
    ipfsrt_buf_append(out, num, (size_t)snprintf(num, sizeof num, "%lld", (long long)v));
    return IPFSRT_OK;
}

/* ------------------------------------------------------ template calls */

/* name(arg='text', arg="text", arg=123): the template name filled with them. */
static ipfsrt_status call(renderer *rd, const char *s, size_t len, size_t name_len, unsigned depth,
                          ipfsrt_buf *out) {
    const char *body = template_text(rd, s, name_len);
    if (!body)
        return ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: no template '%.*s'", (int)name_len, s);
    ipfsrt_refs_var args[MAX_ARGS];
    char *texts[MAX_ARGS];
    size_t n = 0;
    ipfsrt_status st = IPFSRT_OK;
    const char *p = s + name_len + 1, *end = s + len - 1; /* inside the parentheses */
    while (st == IPFSRT_OK && p < end) {
        while (p < end && (isspace((unsigned char)*p) || *p == ',')) p++;
        if (p >= end) break;
        const char *name = p;
        while (p < end && (isalnum((unsigned char)*p) || *p == '_')) p++;
        size_t nlen = (size_t)(p - name);
        while (p < end && isspace((unsigned char)*p)) p++;
        if (!nlen || p >= end || *p++ != '=' || n == MAX_ARGS) {
            st = ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: bad arguments in '{{%.*s}}'", (int)len, s);
            break;
        }
        while (p < end && isspace((unsigned char)*p)) p++;
        char quote = p < end && (*p == '\'' || *p == '"') ? *p++ : 0;
        const char *v = p;
        while (p < end && (quote ? *p != quote : (*p != ',' && !isspace((unsigned char)*p)))) p++;
        if (quote && p >= end) {
            st = ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: an unclosed quote in '{{%.*s}}'", (int)len, s);
            break;
        }
        texts[n] = strndup(v, (size_t)(p - v));
        char *arg_name = strndup(name, nlen);
        if (!texts[n] || !arg_name) {
            free(texts[n]);
            free(arg_name);
            st = ipfsrt_fail(rd->err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
            break;
        }
        args[n] = (ipfsrt_refs_var){arg_name, texts[n], 0};
        n++;
        if (quote) p++;
    }
    if (st == IPFSRT_OK) st = render(rd, body, args, n, depth + 1, out);
    for (size_t i = 0; i < n; i++) {
        free((char *)args[i].name);
        free(texts[i]);
    }
    return st;
}

/* One {{...}}: a template call, a name, or arithmetic. */
static ipfsrt_status fill(renderer *rd, const char *s, size_t len, const ipfsrt_refs_var *vars, size_t nvars,
                          unsigned depth, ipfsrt_buf *out) {
    while (len && isspace((unsigned char)*s)) s++, len--;
    while (len && isspace((unsigned char)s[len - 1])) len--;
    size_t name_len = 0;
    while (name_len < len && (isalnum((unsigned char)s[name_len]) || s[name_len] == '_')) name_len++;
    bool is_name = name_len == len && len && !isdigit((unsigned char)*s);
    if (name_len && !isdigit((unsigned char)*s) && name_len < len && s[name_len] == '(' && s[len - 1] == ')')
        return call(rd, s, len, name_len, depth, out);
    const ipfsrt_refs_var *var = is_name ? find_var(vars, nvars, s, len) : NULL;
    if (var && var->text) {
        ipfsrt_buf_append(out, var->text, strlen(var->text));
        return IPFSRT_OK;
    }
    const char *body = is_name && !var ? template_text(rd, s, len) : NULL;
    if (body) return render(rd, body, NULL, 0, depth + 1, out);
    if (is_name && !var)
        return ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: no template or dimension '%.*s'", (int)len, s);
    return arithmetic(rd, s, len, vars, nvars, out);
}

static ipfsrt_status render(renderer *rd, const char *text, const ipfsrt_refs_var *vars, size_t nvars,
                            unsigned depth, ipfsrt_buf *out) {
    if (depth > IPFSRT_REFS_MAX_TEMPLATE_DEPTH)
        return ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1,
                           "references: templates nest more than %d deep (a template loop?) at '%.100s'",
                           IPFSRT_REFS_MAX_TEMPLATE_DEPTH, text);
    ipfsrt_status st = IPFSRT_OK;
    for (const char *p = text; st == IPFSRT_OK && *p;) {
        const char *open = strstr(p, "{{");
        if (!open) {
            ipfsrt_buf_append(out, p, strlen(p));
            break;
        }
        ipfsrt_buf_append(out, p, (size_t)(open - p));
        const char *close = strstr(open + 2, "}}");
        if (!close) return ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: an unclosed '{{' in '%.100s'", text);
        st = fill(rd, open + 2, (size_t)(close - open - 2), vars, nvars, depth, out);
        p = close + 2;
        if (out->len > RENDER_MAX)
            return ipfsrt_fail(rd->err, IPFSRT_EBAD_ARGUMENT, -1, "references: '%.100s' renders to over %d bytes", text,
                               RENDER_MAX);
    }
    return st;
}

ipfsrt_status ipfsrt_refs_render(const char *text, const cJSON *templates, const ipfsrt_refs_var *vars,
                                 size_t nvars, char **out, ipfsrt_error *err) {
    *out = NULL;
    renderer rd = {templates, err};
    ipfsrt_buf b;
    ipfsrt_buf_init(&b);
    ipfsrt_status st = render(&rd, text, vars, nvars, 0, &b);
    ipfsrt_buf_append(&b, "", 1);
    if (st == IPFSRT_OK && b.failed) st = ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory");
    if (st != IPFSRT_OK) {
        ipfsrt_buf_free(&b);
        return st;
    }
    *out = (char *)b.data;
    return IPFSRT_OK;
}
