/*
 * vqametrics.pipeline._joinrows: lines of text joined from columns of fragments in one pass,
 * without a Python object per piece.
 *
 * Why it exists (issue 23): at VQA v2 scale (214k questions) per_question.jsonl is 82 MB
 * assembled from 16 JSON fragments a line; picking the 3.4M fragments through numpy object
 * arrays and joining them cost the writer about 0.3 s of CPU, half the output phase of a run.
 * Here the same bytes come from two passes over the codes (the length, then a copy).
 *
 * It is an optimisation only: vqametrics.pipeline._vqa_bulk.join_rows_reference is the reference
 * and the fallback. join_rows returns None whenever its input is not what it expects (a piece
 * that is not a one-byte str, a code out of range, codes that are not int64), and the
 * reference decides.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* one column: row i's piece is table[codes[i * step + offset]] (codes absent: the index is
 * i * step + offset itself; table absent: the code written in decimal) */
typedef struct {
    const char *data;
    Py_ssize_t len;
} Piece;

typedef struct {
    Piece *table; /* the table's pieces, or NULL: the code in decimal */
    Py_ssize_t table_len;
    Py_buffer view;
    const int64_t *codes; /* NULL: no codes */
    Py_ssize_t n_codes;
    Py_ssize_t step;
    Py_ssize_t offset;
} Column;

/* the bytes of decimal *v* written backwards from *end*; their count */
static Py_ssize_t
decimal(int64_t v, char *end)
{
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = end;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        *--p = '-';
    }
    return end - p;
}

static int
is_int64_format(const char *format)
{
    if (format == NULL) {
        return 0;
    }
    if (format[0] == '@' || format[0] == '=' || format[0] == '<') {
#if PY_BIG_ENDIAN
        if (format[0] == '<') {
            return 0;
        }
#endif
        format++;
    }
    return (format[0] == 'q' || format[0] == 'l') && format[1] == '\0';
}

/* a one-byte str's characters, or NULL (another kind of str, or not a str) */
static const char *
one_byte(PyObject *item, Py_ssize_t *len)
{
    if (!PyUnicode_Check(item)) {
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(item) < 0) {
        PyErr_Clear();
        return NULL;
    }
#endif
    if (PyUnicode_KIND(item) != PyUnicode_1BYTE_KIND) {
        return NULL;
    }
    *len = PyUnicode_GET_LENGTH(item);
    return (const char *)PyUnicode_1BYTE_DATA(item);
}

/* the pieces of a list of one-byte str (PyMem_Malloc'd), or NULL (another item; no error) */
static Piece *
resolve(PyObject *list, int *no_memory)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    Piece *pieces = PyMem_Malloc((n ? (size_t)n : 1) * sizeof(Piece));
    if (pieces == NULL) {
        *no_memory = 1;
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        pieces[k].data = one_byte(PyList_GET_ITEM(list, k), &pieces[k].len);
        if (pieces[k].data == NULL) {
            PyMem_Free(pieces);
            return NULL;
        }
    }
    return pieces;
}

/* the piece of *col* at row *i*: its characters and length (a decimal is written to *digits*,
 * 24 bytes); NULL: out of range */
static inline const char *
piece(const Column *col, Py_ssize_t i, char *digits, Py_ssize_t *len)
{
    Py_ssize_t j = i * col->step + col->offset;
    int64_t v = j;
    if (col->codes != NULL) {
        if (j < 0 || j >= col->n_codes) {
            return NULL;
        }
        v = col->codes[j];
    }
    if (col->table == NULL) {
        *len = decimal(v, digits + 24);
        return digits + 24 - *len;
    }
    if (v < 0) {
        v += col->table_len; /* as a list (and numpy) index a negative position */
    }
    if (v < 0 || v >= col->table_len) {
        return NULL;
    }
    *len = col->table[v].len;
    return col->table[v].data;
}

PyDoc_STRVAR(join_rows_doc,
             "join_rows(columns, start, stop, slow_rows, slow_texts, /)\n--\n\n"
             "Rows start..stop (excluded) as bytes: each row its columns' pieces in order, or\n"
             "its slow text where slow_rows (ascending) names it. A column is (table, codes,\n"
             "step, offset): row i's piece is table[codes[i * step + offset]]; codes None: the\n"
             "index is i * step + offset; table None: the code in decimal. Pieces are one-byte\n"
             "str, copied as bytes (latin-1). None: input it does not take (see _vqa_bulk).");

static PyObject *
join_rows(PyObject *self, PyObject *args)
{
    PyObject *columns, *slow_rows, *slow_texts;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnO!O!:join_rows", &PyList_Type, &columns, &start, &stop,
                          &PyList_Type, &slow_rows, &PyList_Type, &slow_texts)) {
        return NULL;
    }
    Py_ssize_t n_cols = PyList_GET_SIZE(columns);
    Py_ssize_t n_slow = PyList_GET_SIZE(slow_rows);
    if (stop < start || n_slow != PyList_GET_SIZE(slow_texts)) {
        Py_RETURN_NONE;
    }
    Column *cols = PyMem_Calloc(n_cols ? (size_t)n_cols : 1, sizeof(Column));
    Py_ssize_t *slow = PyMem_Malloc((n_slow ? (size_t)n_slow : 1) * sizeof(Py_ssize_t));
    if (cols == NULL || slow == NULL) {
        PyMem_Free(cols);
        PyMem_Free(slow);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    int usable = 1; /* 1: so far so good; 0: give up (None); -1: an error is set */
    for (Py_ssize_t c = 0; usable == 1 && c < n_cols; c++) {
        PyObject *spec = PyList_GET_ITEM(columns, c);
        PyObject *table, *codes;
        Column *col = &cols[c];
        if (!PyTuple_Check(spec) ||
            !PyArg_ParseTuple(spec, "OOnn", &table, &codes, &col->step, &col->offset)) {
            PyErr_Clear();
            usable = 0;
            break;
        }
        if (table != Py_None) {
            int no_memory = 0;
            if (PyList_Check(table)) {
                col->table = resolve(table, &no_memory);
            }
            if (no_memory) {
                PyErr_NoMemory();
                usable = -1;
                break;
            }
            if (col->table == NULL) {
                usable = 0;
                break;
            }
            col->table_len = PyList_GET_SIZE(table);
        }
        if (codes != Py_None) {
            if (PyObject_GetBuffer(codes, &col->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
                PyErr_Clear();
                usable = 0;
                break;
            }
            if (col->view.itemsize != 8 || !is_int64_format(col->view.format)) {
                usable = 0;
                break;
            }
            col->codes = (const int64_t *)col->view.buf;
            col->n_codes = col->view.len / 8;
        }
    }
    for (Py_ssize_t k = 0; usable == 1 && k < n_slow; k++) {
        Py_ssize_t row = PyLong_AsSsize_t(PyList_GET_ITEM(slow_rows, k));
        Py_ssize_t len;
        if ((row == -1 && PyErr_Occurred()) || row < start || row >= stop ||
            (k && row <= slow[k - 1]) || one_byte(PyList_GET_ITEM(slow_texts, k), &len) == NULL) {
            PyErr_Clear();
            usable = 0;
            break;
        }
        slow[k] = row;
    }
    char digits[24];
    Py_ssize_t total = 0, len = 0;
    for (Py_ssize_t i = start, k = 0; usable == 1 && i < stop; i++) {
        /* a slow row's pieces are checked too, though its text replaces them: the reference
         * picks every row's pieces first, and fails on a code out of range in any row */
        int is_slow = k < n_slow && slow[k] == i;
        for (Py_ssize_t c = 0; c < n_cols; c++) {
            if (piece(&cols[c], i, digits, &len) == NULL) {
                usable = 0;
                break;
            }
            total += is_slow ? 0 : len;
        }
        if (is_slow) {
            one_byte(PyList_GET_ITEM(slow_texts, k++), &len);
            total += len;
        }
    }
    if (usable == 1) {
        result = PyBytes_FromStringAndSize(NULL, total);
        if (result != NULL) {
            char *out = PyBytes_AS_STRING(result);
            for (Py_ssize_t i = start, k = 0; i < stop; i++) {
                const char *text;
                if (k < n_slow && slow[k] == i) {
                    text = one_byte(PyList_GET_ITEM(slow_texts, k++), &len);
                    memcpy(out, text, (size_t)len);
                    out += len;
                    continue;
                }
                for (Py_ssize_t c = 0; c < n_cols; c++) {
                    text = piece(&cols[c], i, digits, &len);
                    memcpy(out, text, (size_t)len);
                    out += len;
                }
            }
        }
    }
    else if (usable == 0) {
        result = Py_NewRef(Py_None);
    }
    for (Py_ssize_t c = 0; c < n_cols; c++) {
        PyMem_Free(cols[c].table);
        if (cols[c].view.obj != NULL) { /* zeroed by the calloc, set by a held buffer */
            PyBuffer_Release(&cols[c].view);
        }
    }
    PyMem_Free(cols);
    PyMem_Free(slow);
    return result;
}

static PyMethodDef methods[] = {
    {"join_rows", join_rows, METH_VARARGS, join_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "vqametrics.pipeline._joinrows",
    "Lines joined from columns of fragments in one pass (see _vqa_bulk).",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__joinrows(void)
{
    return PyModule_Create(&module);
}
