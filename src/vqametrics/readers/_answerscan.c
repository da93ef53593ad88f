/*
 * vqametrics.readers._answerscan: the answers of a VQA annotations file read straight from their raw
 * JSON, without a Python object per answer.
 *
 * Why it exists (issue 23): at VQA v2 scale (214k questions, 2.1M answer records) decoding the
 * answer records with msgspec, checking their answer_ids and interning their texts was the
 * largest single cost of a run on one CPU (about 1.9 s of 4.4 s). This scanner does the same
 * work in one pass over the bytes, hashing the UTF-8 of each text in its own table and making a
 * Python str only for each new distinct text.
 *
 * It is an optimisation only: vqametrics.readers._bulk._batched_answers (pure Python) is the
 * reference and the fallback. scan_answers returns None whenever it is not certain that the
 * reference gives the same result (a number that is not a plain integer, a repeated key, an
 * escaped lone surrogate, nesting deeper than it follows, ...), and the reference decides.
 * Escapes in an answer text or a key are decoded as msgspec decodes them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef const unsigned char *ptr;

/* outcome of a step: keep going, give up (the caller returns None), or a Python error set */
enum { GO = 0, GIVE_UP = 1, FAILED = 2, CLOSED = 3 };

/* deeper nesting inside a skipped value gives up (msgspec's own limit is higher) */
#define MAX_DEPTH 256

static inline ptr
skip_ws(ptr p, ptr end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
        p++;
    }
    return p;
}

static inline int
is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int
is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static inline int
hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* the code unit of a \uXXXX escape at q (q[0] is the backslash), or -1 */
static long
escaped_unit(ptr q, ptr end)
{
    long unit = 0;
    if (end - q < 6 || q[0] != '\\' || q[1] != 'u') {
        return -1;
    }
    for (int i = 2; i < 6; i++) {
        int h = hex_value(q[i]);
        if (h < 0) {
            return -1;
        }
        unit = unit * 16 + h;
    }
    return unit;
}

/* a growable byte buffer for the decoded text of a string with escapes */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} Scratch;

static int
scratch_reserve(Scratch *b, size_t extra)
{
    if (b->len + extra <= b->cap) {
        return GO;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) {
        cap *= 2;
    }
    unsigned char *data = PyMem_Realloc(b->data, cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return FAILED;
    }
    b->data = data;
    b->cap = cap;
    return GO;
}

/* after an item of an array or object: CLOSED with *p past the closing *close, or GO with *p
 * at the next item (past the comma), or GIVE_UP */
static int
after_item(ptr *p, ptr end, unsigned char close)
{
    ptr q = skip_ws(*p, end);
    if (q >= end) {
        return GIVE_UP;
    }
    if (*q == close) {
        *p = q + 1;
        return CLOSED;
    }
    if (*q != ',') {
        return GIVE_UP;
    }
    *p = skip_ws(q + 1, end);
    return GO;
}

/* A string, *p at its opening quote, escapes decoded as JSON (and msgspec) decodes them: its
 * UTF-8 bytes in [*start, *start + *len) (the input itself when it has no escape, else
 * *scratch), *p moved past the closing quote. GIVE_UP on a control character or on an escaped
 * surrogate that is not half of a pair (msgspec rejects those). */
static int
text_string(ptr *p, ptr end, Scratch *scratch, ptr *start, Py_ssize_t *len)
{
    ptr q = *p + 1;
    ptr s = q;
    while (q < end && *q != '"' && *q != '\\') {
        if (*q < 0x20) {
            return GIVE_UP;
        }
        q++;
    }
    if (q >= end) {
        return GIVE_UP;
    }
    if (*q == '"') {
        *start = s;
        *len = q - s;
        *p = q + 1;
        return GO;
    }
    scratch->len = 0;
    if (scratch_reserve(scratch, (size_t)(q - s)) != GO) {
        return FAILED;
    }
    memcpy(scratch->data, s, (size_t)(q - s));
    scratch->len = (size_t)(q - s);
    while (q < end && *q != '"') {
        unsigned char c = *q;
        if (scratch_reserve(scratch, 4) != GO) {
            return FAILED;
        }
        unsigned char *out = scratch->data + scratch->len;
        if (c < 0x20) {
            return GIVE_UP;
        }
        if (c != '\\') {
            *out = c;
            scratch->len++;
            q++;
            continue;
        }
        if (q + 1 >= end) {
            return GIVE_UP;
        }
        switch (q[1]) {
        case '"':
        case '\\':
        case '/':
            *out = q[1];
            break;
        case 'b':
            *out = '\b';
            break;
        case 'f':
            *out = '\f';
            break;
        case 'n':
            *out = '\n';
            break;
        case 'r':
            *out = '\r';
            break;
        case 't':
            *out = '\t';
            break;
        case 'u': {
            long cp = escaped_unit(q, end);
            if (cp < 0 || (cp >= 0xDC00 && cp < 0xE000)) {
                return GIVE_UP;
            }
            if (cp >= 0xD800 && cp < 0xDC00) {
                long low = escaped_unit(q + 6, end);
                if (low < 0xDC00 || low >= 0xE000) {
                    return GIVE_UP;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                q += 6;
            }
            if (cp < 0x80) {
                out[0] = (unsigned char)cp;
                scratch->len += 1;
            }
            else if (cp < 0x800) {
                out[0] = (unsigned char)(0xC0 | (cp >> 6));
                out[1] = (unsigned char)(0x80 | (cp & 0x3F));
                scratch->len += 2;
            }
            else if (cp < 0x10000) {
                out[0] = (unsigned char)(0xE0 | (cp >> 12));
                out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                out[2] = (unsigned char)(0x80 | (cp & 0x3F));
                scratch->len += 3;
            }
            else {
                out[0] = (unsigned char)(0xF0 | (cp >> 18));
                out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
                out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                out[3] = (unsigned char)(0x80 | (cp & 0x3F));
                scratch->len += 4;
            }
            q += 6;
            continue;
        }
        default:
            return GIVE_UP;
        }
        scratch->len++;
        q += 2;
    }
    if (q >= end) {
        return GIVE_UP;
    }
    *start = scratch->data;
    *len = (Py_ssize_t)scratch->len;
    *p = q + 1;
    return GO;
}

/* any JSON string, escapes included (checked, not decoded) */
static int
skip_string(ptr *p, ptr end)
{
    ptr q = *p + 1; /* past the opening quote */
    while (q < end) {
        unsigned char c = *q;
        if (c == '"') {
            *p = q + 1;
            return GO;
        }
        if (c < 0x20) {
            return GIVE_UP;
        }
        if (c == '\\') {
            if (q + 1 >= end) {
                return GIVE_UP;
            }
            c = q[1];
            if (c == 'u') {
                if (q + 6 > end || !is_hex(q[2]) || !is_hex(q[3]) || !is_hex(q[4]) ||
                    !is_hex(q[5])) {
                    return GIVE_UP;
                }
                q += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", c) || c == '\0') {
                return GIVE_UP;
            }
            q += 2;
            continue;
        }
        q++;
    }
    return GIVE_UP;
}

/* the integer part of a JSON number, -?(0|[1-9][0-9]*): *p past it, or GIVE_UP */
static int
skip_integer_part(ptr *p, ptr end)
{
    ptr q = *p;
    if (q < end && *q == '-') {
        q++;
    }
    if (q >= end || !is_digit(*q)) {
        return GIVE_UP;
    }
    if (*q == '0') {
        q++;
    }
    else {
        while (q < end && is_digit(*q)) {
            q++;
        }
    }
    *p = q;
    return GO;
}

/* a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
skip_number(ptr *p, ptr end)
{
    ptr q = *p;
    if (skip_integer_part(&q, end) != GO) {
        return GIVE_UP;
    }
    if (q < end && *q == '.') {
        q++;
        if (q >= end || !is_digit(*q)) {
            return GIVE_UP;
        }
        while (q < end && is_digit(*q)) {
            q++;
        }
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-')) {
            q++;
        }
        if (q >= end || !is_digit(*q)) {
            return GIVE_UP;
        }
        while (q < end && is_digit(*q)) {
            q++;
        }
    }
    *p = q;
    return GO;
}

static int
skip_literal(ptr *p, ptr end, const char *word, size_t n)
{
    if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0) {
        return GIVE_UP;
    }
    *p += n;
    return GO;
}

/* any JSON value, checked as it is skipped (the value of a key other than answer/answer_id) */
static int
skip_value(ptr *p, ptr end, int depth)
{
    ptr q = *p;
    if (q >= end) {
        return GIVE_UP;
    }
    switch (*q) {
    case '"':
        return skip_string(p, end);
    case 't':
        return skip_literal(p, end, "true", 4);
    case 'f':
        return skip_literal(p, end, "false", 5);
    case 'n':
        return skip_literal(p, end, "null", 4);
    case '[':
    case '{': {
        int object = *q == '{';
        unsigned char close = object ? '}' : ']';
        if (depth >= MAX_DEPTH) {
            return GIVE_UP;
        }
        q = skip_ws(q + 1, end);
        if (q < end && *q == close) {
            *p = q + 1;
            return GO;
        }
        for (;;) {
            int rc;
            if (object) {
                if (q >= end || *q != '"' || skip_string(&q, end) != GO) {
                    return GIVE_UP;
                }
                q = skip_ws(q, end);
                if (q >= end || *q != ':') {
                    return GIVE_UP;
                }
                q = skip_ws(q + 1, end);
            }
            rc = skip_value(&q, end, depth + 1);
            if (rc != GO) {
                return rc;
            }
            rc = after_item(&q, end, close);
            if (rc == CLOSED) {
                *p = q;
                return GO;
            }
            if (rc != GO) {
                return rc;
            }
        }
    }
    default:
        if (*q == '-' || is_digit(*q)) {
            return skip_number(p, end);
        }
        return GIVE_UP;
    }
}

/* a plain JSON integer within int64 (what msgspec's int with the schema's bounds accepts;
 * a fraction or an exponent, even 1.0, is a float to msgspec: GIVE_UP) */
static int
parse_int64(ptr *p, ptr end, int64_t *out)
{
    ptr q = *p;
    if (skip_integer_part(&q, end) != GO) {
        return GIVE_UP;
    }
    if (q < end && (*q == '.' || *q == 'e' || *q == 'E' || is_digit(*q))) {
        return GIVE_UP;
    }
    const int negative = **p == '-';
    const uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t value = 0;
    for (ptr digit = *p + negative; digit < q; digit++) {
        unsigned d = *digit - '0';
        if (value > (limit - d) / 10) {
            return GIVE_UP; /* outside int64: the schema's bounds reject it */
        }
        value = value * 10 + d;
    }
    if (negative) {
        *out = value == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)value;
    }
    else {
        *out = (int64_t)value;
    }
    *p = q;
    return GO;
}

/* ---- the table of distinct texts, keyed on their UTF-8 bytes ---- */

typedef struct {
    uint64_t hash;
    Py_ssize_t offset; /* of the text in the arena */
    Py_ssize_t len;
    int64_t code; /* -1: an empty slot */
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;
    size_t used;
    char *arena;
    size_t arena_len, arena_cap;
    PyObject *strings; /* the distinct texts as str, in first-seen order */
} Table;

static uint64_t
hash_bytes(ptr s, Py_ssize_t n)
{
    /* FNV-1a, then a final mix so that the low bits (the slot index) depend on every byte */
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return h;
}

static int
table_init(Table *t)
{
    memset(t, 0, sizeof(*t));
    t->mask = 1023;
    t->slots = PyMem_Malloc((t->mask + 1) * sizeof(Slot));
    t->strings = PyList_New(0);
    if (t->slots == NULL || t->strings == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return FAILED; /* table_free frees what was made */
    }
    for (size_t i = 0; i <= t->mask; i++) {
        t->slots[i].code = -1;
    }
    return GO;
}

static void
table_free(Table *t)
{
    PyMem_Free(t->slots);
    PyMem_Free(t->arena);
    Py_XDECREF(t->strings);
}

static int
table_grow(Table *t)
{
    size_t size = (t->mask + 1) * 2;
    Slot *slots = PyMem_Malloc(size * sizeof(Slot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return FAILED;
    }
    for (size_t i = 0; i < size; i++) {
        slots[i].code = -1;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        Slot *s = &t->slots[i];
        if (s->code < 0) {
            continue;
        }
        size_t j = s->hash & (size - 1);
        while (slots[j].code >= 0) {
            j = (j + 1) & (size - 1);
        }
        slots[j] = *s;
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return GO;
}

/* the code of the text s[0:n] (its rank among the distinct texts in first-seen order) */
static int
table_code(Table *t, ptr s, Py_ssize_t n, int64_t *code)
{
    uint64_t h = hash_bytes(s, n);
    size_t i = h & t->mask;
    for (;;) {
        Slot *slot = &t->slots[i];
        if (slot->code < 0) {
            break;
        }
        if (slot->hash == h && slot->len == n && memcmp(t->arena + slot->offset, s, n) == 0) {
            *code = slot->code;
            return GO;
        }
        i = (i + 1) & t->mask;
    }
    /* a new text: made a str (invalid UTF-8 gives up: the reference words it) */
    PyObject *text = PyUnicode_DecodeUTF8((const char *)s, n, "strict");
    if (text == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            return GIVE_UP;
        }
        return FAILED;
    }
    int appended = PyList_Append(t->strings, text);
    Py_DECREF(text);
    if (appended < 0) {
        return FAILED;
    }
    if (t->arena_len + (size_t)n > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 4096;
        while (cap < t->arena_len + (size_t)n) {
            cap *= 2;
        }
        char *arena = PyMem_Realloc(t->arena, cap);
        if (arena == NULL) {
            PyErr_NoMemory();
            return FAILED;
        }
        t->arena = arena;
        t->arena_cap = cap;
    }
    if (n) {
        memcpy(t->arena + t->arena_len, s, n);
    }
    Slot *slot = &t->slots[i];
    slot->hash = h;
    slot->offset = (Py_ssize_t)t->arena_len;
    slot->len = n;
    slot->code = (int64_t)t->used;
    t->arena_len += (size_t)n;
    *code = slot->code;
    t->used++;
    if (t->used * 2 > t->mask) {
        return table_grow(t);
    }
    return GO;
}

/* ---- a growable int64 column kept in a bytearray (numpy reads it without a copy) ---- */

typedef struct {
    PyObject *bytes; /* bytearray */
    Py_ssize_t len, cap;
} Column;

static int
column_init(Column *c, Py_ssize_t cap)
{
    c->len = 0;
    c->cap = cap > 16 ? cap : 16;
    c->bytes = PyByteArray_FromStringAndSize(NULL, c->cap * (Py_ssize_t)sizeof(int64_t));
    return c->bytes == NULL ? FAILED : GO;
}

static inline int
column_push(Column *c, int64_t v)
{
    if (c->len == c->cap) {
        Py_ssize_t cap = c->cap * 2;
        if (PyByteArray_Resize(c->bytes, cap * (Py_ssize_t)sizeof(int64_t)) < 0) {
            return FAILED;
        }
        c->cap = cap;
    }
    int64_t *data = (int64_t *)PyByteArray_AS_STRING(c->bytes);
    memcpy(&data[c->len++], &v, sizeof(v));
    return GO;
}

static int
column_finish(Column *c)
{
    return PyByteArray_Resize(c->bytes, c->len * (Py_ssize_t)sizeof(int64_t)) < 0 ? FAILED
                                                                                     : GO;
}

static int
cmp_int64(const void *a, const void *b)
{
    int64_t x, y;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    return (x > y) - (x < y);
}

/* whether ids[0:k] are pairwise distinct (k is 10 for a VQA question) */
static int
distinct(int64_t *ids, Py_ssize_t k)
{
    if (k <= 32) {
        for (Py_ssize_t i = 1; i < k; i++) {
            for (Py_ssize_t j = 0; j < i; j++) {
                if (ids[i] == ids[j]) {
                    return 0;
                }
            }
        }
        return 1;
    }
    qsort(ids, (size_t)k, sizeof(int64_t), cmp_int64);
    for (Py_ssize_t i = 1; i < k; i++) {
        if (ids[i] == ids[i - 1]) {
            return 0;
        }
    }
    return 1;
}

typedef struct {
    Table table;
    Column codes;
    int64_t *ids; /* the answer_ids of the question being read */
    Py_ssize_t ids_cap;
    Scratch scratch;     /* the decoded text of an answer with escapes */
    Scratch key_scratch; /* the decoded text of a key with escapes */
} Scan;

/* one answer record {"answer": str, "answer_id": int, ...}, *p at its opening brace */
static int
scan_record(ptr *p, ptr end, Scratch *scratch, Scratch *key_scratch, ptr *text, Py_ssize_t *text_len, int64_t *id)
{
    ptr q = *p;
    int have_text = 0, have_id = 0;
    if (q >= end || *q != '{') {
        return GIVE_UP;
    }
    q = skip_ws(q + 1, end);
    if (q < end && *q == '}') {
        return GIVE_UP; /* no answer */
    }
    for (;;) {
        ptr key;
        Py_ssize_t key_len;
        int rc;
        /* keys are matched decoded, as msgspec matches them ("answ\u0065r" is "answer") */
        if (q >= end || *q != '"') {
            return GIVE_UP;
        }
        rc = text_string(&q, end, key_scratch, &key, &key_len);
        if (rc != GO) {
            return rc;
        }
        q = skip_ws(q, end);
        if (q >= end || *q != ':') {
            return GIVE_UP;
        }
        q = skip_ws(q + 1, end);
        if (key_len == 6 && memcmp(key, "answer", 6) == 0) {
            if (have_text) {
                return GIVE_UP;
            }
            have_text = 1;
            rc = q < end && *q == '"' ? text_string(&q, end, scratch, text, text_len) : GIVE_UP;
        }
        else if (key_len == 9 && memcmp(key, "answer_id", 9) == 0) {
            if (have_id) {
                return GIVE_UP;
            }
            have_id = 1;
            rc = parse_int64(&q, end, id);
        }
        else {
            rc = skip_value(&q, end, 1);
        }
        if (rc != GO) {
            return rc;
        }
        rc = after_item(&q, end, '}');
        if (rc == CLOSED) {
            break;
        }
        if (rc != GO) {
            return rc;
        }
    }
    if (!have_text || !have_id) {
        return GIVE_UP; /* a missing answer_id: the reference gives up too */
    }
    *p = q;
    return GO;
}

/* one question's answer list; *count: its number of answers */
static int
scan_list(Scan *sc, ptr p, ptr end, int64_t *count)
{
    Py_ssize_t k = 0;
    p = skip_ws(p, end);
    if (p >= end || *p != '[') {
        return GIVE_UP;
    }
    p = skip_ws(p + 1, end);
    if (p < end && *p == ']') {
        return GIVE_UP; /* a question without answers */
    }
    for (;;) {
        ptr text = NULL;
        Py_ssize_t text_len = 0;
        int64_t id = 0, code = 0;
        int rc = scan_record(&p, end, &sc->scratch, &sc->key_scratch, &text, &text_len, &id);
        if (rc != GO) {
            return rc;
        }
        rc = table_code(&sc->table, text, text_len, &code);
        if (rc != GO) {
            return rc;
        }
        if (column_push(&sc->codes, code) != GO) {
            return FAILED;
        }
        if (k == sc->ids_cap) {
            Py_ssize_t cap = sc->ids_cap * 2;
            int64_t *ids = PyMem_Realloc(sc->ids, (size_t)cap * sizeof(int64_t));
            if (ids == NULL) {
                PyErr_NoMemory();
                return FAILED;
            }
            sc->ids = ids;
            sc->ids_cap = cap;
        }
        sc->ids[k++] = id;
        rc = after_item(&p, end, ']');
        if (rc == CLOSED) {
            break;
        }
        if (rc != GO) {
            return rc;
        }
    }
    if (skip_ws(p, end) != end) {
        return GIVE_UP;
    }
    if (!distinct(sc->ids, k)) {
        return GIVE_UP; /* equal answer_ids: the official record groups apply */
    }
    *count = k;
    return GO;
}

PyDoc_STRVAR(scan_answers_doc,
             "scan_answers(raws, /)\n--\n\n"
             "From each question's raw JSON answer list (a buffer): (counts, texts, codes),\n"
             "counts and codes int64 in bytearrays, texts the distinct answer texts in\n"
             "first-seen order; None when readers._bulk._batched_answers must decide.");

static PyObject *
scan_answers(PyObject *module, PyObject *arg)
{
    (void)module;
    PyObject *seq = PySequence_Fast(arg, "scan_answers() takes a sequence of buffers");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *result = NULL;
    Column counts = {NULL, 0, 0};
    Scan sc;
    memset(&sc, 0, sizeof(sc));
    int rc = n ? GO : GIVE_UP;
    if (rc == GO && (table_init(&sc.table) != GO || column_init(&sc.codes, n * 10) != GO ||
                     column_init(&counts, n) != GO)) {
        rc = FAILED;
    }
    if (rc == GO) {
        sc.ids_cap = 64;
        sc.ids = PyMem_Malloc((size_t)sc.ids_cap * sizeof(int64_t));
        if (sc.ids == NULL) {
            PyErr_NoMemory();
            rc = FAILED;
        }
    }
    for (Py_ssize_t i = 0; rc == GO && i < n; i++) {
        Py_buffer view;
        int64_t count = 0;
        if (PyObject_GetBuffer(items[i], &view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            rc = GIVE_UP;
            break;
        }
        ptr start = (ptr)view.buf;
        rc = scan_list(&sc, start, start + view.len, &count);
        PyBuffer_Release(&view);
        if (rc == GO) {
            rc = column_push(&counts, count);
        }
    }
    if (rc == GO && (column_finish(&counts) != GO || column_finish(&sc.codes) != GO)) {
        rc = FAILED;
    }
    if (rc == GO) {
        result = PyTuple_Pack(3, counts.bytes, sc.table.strings, sc.codes.bytes);
    }
    else if (rc == GIVE_UP) {
        result = Py_NewRef(Py_None);
    }
    PyMem_Free(sc.ids);
    PyMem_Free(sc.scratch.data);
    PyMem_Free(sc.key_scratch.data);
    table_free(&sc.table);
    Py_XDECREF(sc.codes.bytes);
    Py_XDECREF(counts.bytes);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef methods[] = {
    {"scan_answers", scan_answers, METH_O, scan_answers_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "vqametrics.readers._answerscan",
    "The answers of a VQA annotations file read from their raw JSON (see _bulk).",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__answerscan(void)
{
    return PyModule_Create(&module);
}
