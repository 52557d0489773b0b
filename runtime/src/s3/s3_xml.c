/* S3's XML answers (ListObjectsV2 results, error documents, a multipart
 * upload's id) read with expat as the body arrives. Only the few elements S3
 * defines are kept, each text bounded; a document type (where entity tricks
 * live) is refused, and expat's own guard against amplifying entities stays on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "s3/s3_internal.h"

/* The element an end tag closes, by the path of names above it. */
static void element_end(ipfsrt_s3_xml *x, const char *name) {
    const char *text = x->text.data ? (const char *)x->text.data : "";
    const char *parent = x->depth >= 2 ? x->names[x->depth - 2] : "";
    if (x->depth == 2 && strcmp(parent, "Error") == 0) {
        if (strcmp(name, "Code") == 0) snprintf(x->code, sizeof x->code, "%s", text);
        else if (strcmp(name, "Message") == 0) snprintf(x->message, sizeof x->message, "%s", text);
        else if (strcmp(name, "Region") == 0) snprintf(x->region, sizeof x->region, "%s", text);
    } else if (x->depth == 2 && strcmp(parent, "InitiateMultipartUploadResult") == 0) {
        if (strcmp(name, "UploadId") == 0) snprintf(x->upload_id, sizeof x->upload_id, "%s", text);
    } else if (x->depth == 2 && strcmp(parent, "ListBucketResult") == 0) {
        if (strcmp(name, "IsTruncated") == 0) x->truncated = strcmp(text, "true") == 0;
        else if (strcmp(name, "NextContinuationToken") == 0) snprintf(x->token, sizeof x->token, "%s", text);
        else if (strcmp(name, "Contents") == 0 || strcmp(name, "CommonPrefixes") == 0) x->entry_done = true;
    } else if (x->depth == 3 && (strcmp(parent, "Contents") == 0 || strcmp(parent, "CommonPrefixes") == 0)) {
        if (strcmp(name, "Key") == 0 || strcmp(name, "Prefix") == 0) {
            snprintf(x->key, sizeof x->key, "%s", text);
            x->have_key = true;
            x->is_prefix = strcmp(parent, "CommonPrefixes") == 0;
        } else if (strcmp(name, "Size") == 0) {
            char *end;
            unsigned long long v = strtoull(text, &end, 10);
            x->size = *text >= '0' && *text <= '9' && !*end ? v : UINT64_MAX;
        }
    }
}

static void stop(ipfsrt_s3_xml *x, ipfsrt_status st, const char *why) {
    if (!x->failed) {
        x->failed = true;
        ipfsrt_fail(&x->error, st, (int64_t)XML_GetCurrentByteIndex(x->parser), "S3 XML: %s", why);
    }
    XML_StopParser(x->parser, XML_FALSE);
}

static void XMLCALL on_start(void *user, const XML_Char *name, const XML_Char **attrs) {
    ipfsrt_s3_xml *x = user;
    (void)attrs;
    if (x->depth >= IPFSRT_S3_XML_DEPTH) {
        stop(x, IPFSRT_EBAD_ARGUMENT, "elements nested too deep");
        return;
    }
    if (x->depth == 0) snprintf(x->root, sizeof x->root, "%s", name);
    snprintf(x->names[x->depth++], sizeof x->names[0], "%s", name);
    x->text.len = 0;
    if (x->depth == 2 && (strcmp(name, "Contents") == 0 || strcmp(name, "CommonPrefixes") == 0)) {
        x->have_key = false;
        x->size = UINT64_MAX;
    }
}

static void XMLCALL on_end(void *user, const XML_Char *name) {
    ipfsrt_s3_xml *x = user;
    ipfsrt_buf_append(&x->text, "", 1); /* the text as a C string */
    element_end(x, name);
    x->text.len = 0;
    x->depth--;
    if (!x->entry_done) return;
    x->entry_done = false;
    if (!x->have_key || !x->on_entry) return;
    if (++x->entries > IPFSRT_S3_XML_MAX_ENTRIES) {
        stop(x, IPFSRT_ETOO_LARGE, "more entries than one page holds");
        return;
    }
    ipfsrt_error e;
    if (x->on_entry(x->user, x->key, x->size, x->is_prefix, &e) != IPFSRT_OK) {
        if (!x->failed) x->error = e;
        x->failed = true;
        XML_StopParser(x->parser, XML_FALSE);
    }
}

static void XMLCALL on_text(void *user, const XML_Char *s, int len) {
    ipfsrt_s3_xml *x = user;
    if (x->text.len + (size_t)len > IPFSRT_S3_XML_TEXT_MAX) {
        stop(x, IPFSRT_ETOO_LARGE, "an element's text is too long");
        return;
    }
    ipfsrt_buf_append(&x->text, s, (size_t)len);
    if (x->text.failed) stop(x, IPFSRT_EOUT_OF_MEMORY, "out of memory");
}

static void XMLCALL on_doctype(void *user, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
                               int has_internal) {
    (void)name, (void)sysid, (void)pubid, (void)has_internal;
    stop(user, IPFSRT_EBAD_ARGUMENT, "a document type declaration (S3 sends none)");
}

ipfsrt_status ipfsrt_s3_xml_init(ipfsrt_s3_xml *x, ipfsrt_s3_entry_fn on_entry, void *user, ipfsrt_error *err) {
    memset(x, 0, sizeof *x);
    ipfsrt_buf_init(&x->text);
    x->on_entry = on_entry;
    x->user = user;
    x->parser = XML_ParserCreate("UTF-8");
    if (!x->parser) return ipfsrt_fail(err, IPFSRT_EOUT_OF_MEMORY, -1, "out of memory for an XML parser");
    XML_SetUserData(x->parser, x);
    XML_SetElementHandler(x->parser, on_start, on_end);
    XML_SetCharacterDataHandler(x->parser, on_text);
    XML_SetStartDoctypeDeclHandler(x->parser, on_doctype);
    return IPFSRT_OK;
}

static ipfsrt_status parse(ipfsrt_s3_xml *x, const void *data, size_t len, bool last, ipfsrt_error *err) {
    if (x->failed) {
        if (err) *err = x->error;
        return x->error.code;
    }
    if (len > (size_t)INT32_MAX) return ipfsrt_fail(err, IPFSRT_ETOO_LARGE, -1, "S3 XML: a piece too large");
    enum XML_Status s = XML_Parse(x->parser, data, (int)len, last);
    if (x->failed) {
        if (err) *err = x->error;
        return x->error.code;
    }
    if (s != XML_STATUS_OK) {
        x->failed = true;
        ipfsrt_fail(&x->error, IPFSRT_EBAD_ARGUMENT, (int64_t)XML_GetCurrentByteIndex(x->parser), "S3 XML: %s",
                    XML_ErrorString(XML_GetErrorCode(x->parser)));
        if (err) *err = x->error;
        return x->error.code;
    }
    return IPFSRT_OK;
}

ipfsrt_status ipfsrt_s3_xml_feed(ipfsrt_s3_xml *x, const void *data, size_t len, ipfsrt_error *err) {
    return parse(x, data, len, false, err);
}

ipfsrt_status ipfsrt_s3_xml_finish(ipfsrt_s3_xml *x, ipfsrt_error *err) { return parse(x, "", 0, true, err); }

void ipfsrt_s3_xml_free(ipfsrt_s3_xml *x) {
    if (x->parser) XML_ParserFree(x->parser);
    x->parser = NULL;
    ipfsrt_buf_free(&x->text);
}
