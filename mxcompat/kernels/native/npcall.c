/* mx.np's per-call fast paths as a CPython extension, for mxcompat.numpy._fastcall (built by kernels._native).

   A Fast object stands in for one Python function of mx.np (or one method of mx.np.ndarray): it computes the common
   case itself, exactly as that function's own fast path in Python does (the torch function on the arrays' tensors,
   the result wrapped in a new array with the dtype and context that path gives it), and hands every other call,
   unchanged, to the Python function (its "fallback"). Whatever a fast path meets that it does not expect (an
   operand of another kind, an unset slot, an exception from torch) makes it decline: the fallback then does the
   whole call, raising the errors the Python code raises. So the Python functions stay the one definition; this
   only saves the interpreter's work on the path every call takes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stddef.h>

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o) {
    Py_INCREF(o);
    return o;
}
#endif

enum { BINARY, COMPARE, UNARY, DOT, GETITEM, RESHAPE, NMODES };
#define MAX_DTYPES 8

typedef struct {
    PyObject_HEAD
    int mode;
    PyObject *fallback;  /* the Python function: every call this declines */
    PyObject *fn;        /* the torch function (DOT: torch.mm) */
    PyObject *number_fn; /* BINARY, COMPARE: the torch function taking a Python number second; DOT: torch.mv */
    PyObject *third;     /* DOT: torch.matmul */
    PyObject *result_dt; /* UNARY: the result's recorded dtype (NULL: the input's) */
    PyObject *direct[MAX_DTYPES];  /* dtypes whose arrays compute directly */
    PyObject *numeric[MAX_DTYPES]; /* dtypes whose arrays take a Python number directly */
    int ndirect, nnumeric;
    PyObject *dict;
    vectorcallfunc vectorcall;
} Fast;

/* set once by setup(): the array type, its slots' offsets, autograd's state and the names read */
static PyTypeObject *array_type;
static Py_ssize_t off_tensor, off_ctx, off_dt;
static PyObject *state, *track, *torch_bool, *torch_reshape;
static PyObject *s_requires_grad, *s_recording, *s_detach, *s_ndim, *s_is_contiguous, *s_clone;
static PyObject decline_marker;  /* returned by a fast path that declines (never a result) */
#define DECLINE (&decline_marker)
#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* o.<name> as a C long (truth: its truth value); -1 on error */
static long read_attr(PyObject *o, PyObject *name, int truth) {
    PyObject *v = PyObject_GetAttr(o, name);
    long n;
    if (v == NULL)
        return -1;
    n = truth ? PyObject_IsTrue(v) : PyLong_AsLong(v);
    Py_DECREF(v);
    return n;
}

/* 1 when autograd records on this thread, 0 when not, -1 on error */
#define recording() ((int)read_attr(state, s_recording, 1))
/* a tensor's number of dimensions, -1 on error */
#define ndim(t) read_attr((t), s_ndim, 0)

/* what a fast path whose torch call raised does: decline (the fallback raises the Python code's error) */
static PyObject *failed(void) {
    if (PyErr_ExceptionMatches(PyExc_Exception)) {
        PyErr_Clear();
        return DECLINE;
    }
    return NULL;
}

/* a new array around tensor r (a reference taken over) as the Python fast paths make it: with a graph only under
   record() (the result noted for a later backward), detached otherwise; grad=0 skips that (bool results) */
static PyObject *wrap(PyObject *r, PyObject *ctx, PyObject *dt, int grad) {
    PyObject *w;
    if (grad) {
        PyObject *flag = PyObject_GetAttr(r, s_requires_grad);
        if (flag == NULL) {
            Py_DECREF(r);
            return NULL;
        }
        grad = flag == Py_True;
        Py_DECREF(flag);
    }
    w = array_type->tp_alloc(array_type, 0);
    if (w == NULL) {
        Py_DECREF(r);
        return NULL;
    }
    if (grad) {
        int on = recording();
        if (on < 0)
            goto fail;
        if (on) {
            PyObject *res = PyObject_CallOneArg(track, w);
            if (res == NULL)
                goto fail;
            Py_DECREF(res);
        } else {
            PyObject *d = PyObject_CallMethodNoArgs(r, s_detach);
            if (d == NULL)
                goto fail;
            Py_SETREF(r, d);
        }
    }
    SLOT(w, off_tensor) = r;
    Py_INCREF(ctx);
    SLOT(w, off_ctx) = ctx;
    Py_INCREF(dt);
    SLOT(w, off_dt) = dt;
    return w;
fail:
    Py_DECREF(r);
    Py_DECREF(w);
    return NULL;
}

static int member(PyObject *const *set, int n, PyObject *x) {
    for (int i = 0; i < n; i++)
        if (set[i] == x)
            return 1;
    return 0;
}

/* an array's tensor, context and recorded dtype; 0 when one of them is unset (the fallback raises then) */
static int parts(PyObject *x, PyObject **t, PyObject **ctx, PyObject **dt) {
    *t = SLOT(x, off_tensor);
    *ctx = SLOT(x, off_ctx);
    *dt = SLOT(x, off_dt);
    return *t != NULL && *ctx != NULL && *dt != NULL;
}

/* _op._binary_fast and _binary_fast_cmp: two arrays of one direct dtype, or a float array and a Python number */
static PyObject *binary(Fast *f, PyObject *const *args, Py_ssize_t n) {
    PyObject *x1, *x2, *t1, *ctx, *da, *r, *pair[2];
    if (n != 2 || Py_TYPE(args[0]) != array_type)
        return DECLINE;
    x1 = args[0];
    x2 = args[1];
    if (!parts(x1, &t1, &ctx, &da))
        return DECLINE;
    if (f->mode == COMPARE) {  /* (only outside record(): the Python path keeps a bool result in the graph) */
        int on = recording();
        if (on)
            return on < 0 ? NULL : DECLINE;
    }
    pair[0] = t1;
    if (Py_TYPE(x2) == array_type) {
        PyObject *t2 = SLOT(x2, off_tensor);
        if (t2 == NULL || SLOT(x2, off_dt) != da || !member(f->direct, f->ndirect, da))
            return DECLINE;
        pair[1] = t2;
        r = PyObject_Vectorcall(f->fn, pair, 2, NULL);
    } else if ((PyFloat_CheckExact(x2) || PyLong_CheckExact(x2)) && member(f->numeric, f->nnumeric, da)) {
        pair[1] = x2;
        r = PyObject_Vectorcall(f->number_fn, pair, 2, NULL);
    } else {
        return DECLINE;
    }
    if (r == NULL)
        return failed();
    if (f->mode == COMPARE)
        return wrap(r, ctx, torch_bool, 0);
    return wrap(r, ctx, da, 1);
}

/* _op._unary: an array of a direct dtype */
static PyObject *unary(Fast *f, PyObject *const *args, Py_ssize_t n) {
    PyObject *t, *ctx, *d, *r;
    if (n != 1 || Py_TYPE(args[0]) != array_type || !parts(args[0], &t, &ctx, &d) || !member(f->direct, f->ndirect, d))
        return DECLINE;
    r = PyObject_Vectorcall(f->fn, &t, 1, NULL);
    if (r == NULL)
        return failed();
    return wrap(r, ctx, f->result_dt != NULL ? f->result_dt : d, 1);
}

/* _op.dot: two arrays, b a matrix or a vector (torch.mm, torch.mv, torch.matmul) */
static PyObject *dot(Fast *f, PyObject *const *args, Py_ssize_t n) {
    PyObject *ta, *tb, *ctx, *da, *r, *fn, *pair[2];
    long nb;
    if (n != 2 || Py_TYPE(args[0]) != array_type || Py_TYPE(args[1]) != array_type || !parts(args[0], &ta, &ctx, &da))
        return DECLINE;
    tb = SLOT(args[1], off_tensor);
    if (tb == NULL || (nb = ndim(tb)) < 0)
        return tb == NULL ? DECLINE : failed();
    if (nb == 2) {
        fn = f->fn;
    } else if (nb == 1) {
        long na = ndim(ta);
        if (na < 0)
            return failed();
        fn = na == 2 ? f->number_fn : f->third;
    } else {
        return DECLINE;
    }
    pair[0] = ta;
    pair[1] = tb;
    r = PyObject_Vectorcall(fn, pair, 2, NULL);
    if (r == NULL)
        return failed();
    return wrap(r, ctx, da, 1);
}

/* multiarray.ndarray.__getitem__ with an int */
static PyObject *getitem(Fast *f, PyObject *const *args, Py_ssize_t n) {
    PyObject *t, *ctx, *d, *r;
    (void)f;
    if (n != 2 || Py_TYPE(args[0]) != array_type || !PyLong_CheckExact(args[1]) || !parts(args[0], &t, &ctx, &d))
        return DECLINE;
    r = PyObject_GetItem(t, args[1]);
    if (r == NULL)
        return failed();
    return wrap(r, ctx, d, 1);
}

/* multiarray.ndarray.reshape with positional arguments: a new array (a contiguous copy) */
static PyObject *reshape(Fast *f, PyObject *const *args, Py_ssize_t n) {
    PyObject *t, *ctx, *d, *shape, *r, *flag, *pair[2];
    int contiguous;
    (void)f;
    if (n < 2 || Py_TYPE(args[0]) != array_type || !parts(args[0], &t, &ctx, &d))
        return DECLINE;
    if (n == 2 && !PyLong_CheckExact(args[1])) {
        shape = args[1];
        Py_INCREF(shape);
    } else if ((shape = PyTuple_New(n - 1)) != NULL) {
        for (Py_ssize_t i = 1; i < n; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(shape, i - 1, args[i]);
        }
    } else {
        return NULL;
    }
    pair[0] = t;
    pair[1] = shape;
    r = PyObject_Vectorcall(torch_reshape, pair, 2, NULL);
    Py_DECREF(shape);
    if (r == NULL)
        return failed();
    flag = PyObject_CallMethodNoArgs(r, s_is_contiguous);
    contiguous = flag == NULL ? -1 : PyObject_IsTrue(flag);
    Py_XDECREF(flag);
    if (contiguous != 1) {  /* (a copy of another layout: the Python path) */
        Py_DECREF(r);
        return contiguous < 0 ? failed() : DECLINE;
    }
    Py_SETREF(r, PyObject_CallMethodNoArgs(r, s_clone));
    if (r == NULL)
        return NULL;
    return wrap(r, ctx, Py_None, 1);
}

typedef PyObject *(*fastpath)(Fast *, PyObject *const *, Py_ssize_t);
static const fastpath PATHS[NMODES] = {binary, binary, unary, dot, getitem, reshape};

static PyObject *fast_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Fast *f = (Fast *)op;
    if (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) {
        PyObject *r = PATHS[f->mode](f, args, PyVectorcall_NARGS(nargsf));
        if (r != DECLINE)
            return r;
    }
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

static int take_dtypes(PyObject *seq, PyObject **out, int *n, const char *what) {
    PyObject *items = PySequence_Fast(seq, what);
    Py_ssize_t k;
    if (items == NULL)
        return -1;
    k = PySequence_Fast_GET_SIZE(items);
    if (k > MAX_DTYPES) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "Fast: at most %d dtypes in %s", MAX_DTYPES, what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        out[i] = PySequence_Fast_GET_ITEM(items, i);
        Py_INCREF(out[i]);
    }
    *n = (int)k;
    Py_DECREF(items);
    return 0;
}

static int fast_clear(PyObject *op) {
    Fast *f = (Fast *)op;
    Py_CLEAR(f->fallback);
    Py_CLEAR(f->fn);
    Py_CLEAR(f->number_fn);
    Py_CLEAR(f->third);
    Py_CLEAR(f->result_dt);
    Py_CLEAR(f->dict);
    for (int i = 0; i < f->ndirect; i++)
        Py_CLEAR(f->direct[i]);
    for (int i = 0; i < f->nnumeric; i++)
        Py_CLEAR(f->numeric[i]);
    f->ndirect = f->nnumeric = 0;
    return 0;
}

static int fast_traverse(PyObject *op, visitproc visit, void *arg) {
    Fast *f = (Fast *)op;
    Py_VISIT(f->fallback);
    Py_VISIT(f->fn);
    Py_VISIT(f->number_fn);
    Py_VISIT(f->third);
    Py_VISIT(f->result_dt);
    Py_VISIT(f->dict);
    return 0;
}

static void fast_dealloc(PyObject *op) {
    PyObject_GC_UnTrack(op);
    fast_clear(op);
    Py_TYPE(op)->tp_free(op);
}

/* Fast(mode, fallback, fn, number_fn, third, direct, numeric, result_dt): see the struct; None where unused */
static PyObject *fast_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int mode;
    PyObject *fallback, *fn, *number_fn, *third, *direct, *numeric, *result_dt;
    Fast *f;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "Fast() takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "iOOOOOOO:Fast", &mode, &fallback, &fn, &number_fn, &third, &direct, &numeric,
                          &result_dt))
        return NULL;
    if (mode < 0 || mode >= NMODES || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "Fast: an unknown mode, or a fallback that is not callable");
        return NULL;
    }
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Fast: setup() has not been called");
        return NULL;
    }
    f = (Fast *)type->tp_alloc(type, 0);
    if (f == NULL)
        return NULL;
    f->mode = mode;
    f->vectorcall = fast_call;
    Py_INCREF(fallback);
    f->fallback = fallback;
    f->fn = fn == Py_None ? NULL : Py_NewRef(fn);
    f->number_fn = number_fn == Py_None ? NULL : Py_NewRef(number_fn);
    f->third = third == Py_None ? NULL : Py_NewRef(third);
    f->result_dt = result_dt == Py_Ellipsis ? NULL : Py_NewRef(result_dt);  /* (... : the input's dtype) */
    if (take_dtypes(direct, f->direct, &f->ndirect, "direct") < 0 ||
        take_dtypes(numeric, f->numeric, &f->nnumeric, "numeric") < 0)
        goto fail;
    if ((mode <= UNARY || mode == DOT) && f->fn == NULL) {
        PyErr_SetString(PyExc_ValueError, "Fast: this mode needs fn");
        goto fail;
    }
    if ((mode == DOT && (f->number_fn == NULL || f->third == NULL)) || (f->nnumeric && f->number_fn == NULL)) {
        PyErr_SetString(PyExc_ValueError, "Fast: this mode needs number_fn (and DOT third)");
        goto fail;
    }
    return (PyObject *)f;
fail:
    Py_DECREF(f);
    return NULL;
}

/* a method when read from an instance, as a Python function is */
static PyObject *fast_get(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *fast_repr(PyObject *op) {
    return PyObject_Repr(((Fast *)op)->fallback);
}

/* pickled by name, as a Python function is (copy.deepcopy keeps it) */
static PyObject *fast_reduce(PyObject *op, PyObject *unused) {
    (void)unused;
    return PyObject_GetAttrString(op, "__qualname__");
}

static PyMethodDef fast_methods[] = {
    {"__reduce__", fast_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef fast_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef fast_members[] = {
    {"fallback", T_OBJECT, offsetof(Fast, fallback), READONLY, "the Python function doing what this declines"},
    {"mode", T_INT, offsetof(Fast, mode), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject FastType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mxcompat.npcall.Fast",
    .tp_basicsize = sizeof(Fast),
    .tp_dealloc = fast_dealloc,
    .tp_vectorcall_offset = offsetof(Fast, vectorcall),
    .tp_repr = fast_repr,
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_traverse = fast_traverse,
    .tp_clear = fast_clear,
    .tp_methods = fast_methods,
    .tp_members = fast_members,
    .tp_getset = fast_getset,
    .tp_descr_get = fast_get,
    .tp_dictoffset = offsetof(Fast, dict),
    .tp_new = fast_new,
    .tp_free = PyObject_GC_Del,
};

/* the byte offset of an object slot (a __slots__ name) of a type */
static Py_ssize_t slot_offset(PyObject *type, const char *name) {
    PyObject *d = PyObject_GetAttrString(type, name);
    Py_ssize_t off = -1;
    if (d == NULL)
        return -1;
    if (Py_IS_TYPE(d, &PyMemberDescr_Type) && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX)
        off = ((PyMemberDescrObject *)d)->d_member->offset;
    else
        PyErr_Format(PyExc_TypeError, "setup: %s is not an object slot", name);
    Py_DECREF(d);
    return off;
}

/* setup(array_type, state, track, torch_bool, torch_reshape) */
static PyObject *setup(PyObject *mod, PyObject *args) {
    PyObject *type, *st, *tr, *tb, *rs;
    Py_ssize_t a, b, c;
    (void)mod;
    if (!PyArg_ParseTuple(args, "O!OOOO:setup", &PyType_Type, &type, &st, &tr, &tb, &rs))
        return NULL;
    if ((a = slot_offset(type, "_t")) < 0 || (b = slot_offset(type, "_ctx")) < 0 || (c = slot_offset(type, "_dt")) < 0)
        return NULL;
    off_tensor = a;
    off_ctx = b;
    off_dt = c;
    Py_XSETREF(array_type, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(state, Py_NewRef(st));
    Py_XSETREF(track, Py_NewRef(tr));
    Py_XSETREF(torch_bool, Py_NewRef(tb));
    Py_XSETREF(torch_reshape, Py_NewRef(rs));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", setup, METH_VARARGS, "setup(array_type, state, track, torch_bool, torch_reshape)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "npcall", "mx.np's per-call fast paths (see mxcompat.numpy._fastcall)", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_npcall(void) {
    PyObject *m;
    if (PyType_Ready(&FastType) < 0)
        return NULL;
    if ((s_requires_grad = PyUnicode_InternFromString("requires_grad")) == NULL ||
        (s_recording = PyUnicode_InternFromString("recording")) == NULL ||
        (s_detach = PyUnicode_InternFromString("detach")) == NULL ||
        (s_ndim = PyUnicode_InternFromString("ndim")) == NULL ||
        (s_is_contiguous = PyUnicode_InternFromString("is_contiguous")) == NULL ||
        (s_clone = PyUnicode_InternFromString("clone")) == NULL)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&FastType);
    if (PyModule_AddObject(m, "Fast", (PyObject *)&FastType) < 0 ||
        PyModule_AddIntConstant(m, "BINARY", BINARY) < 0 || PyModule_AddIntConstant(m, "COMPARE", COMPARE) < 0 ||
        PyModule_AddIntConstant(m, "UNARY", UNARY) < 0 || PyModule_AddIntConstant(m, "DOT", DOT) < 0 ||
        PyModule_AddIntConstant(m, "GETITEM", GETITEM) < 0 || PyModule_AddIntConstant(m, "RESHAPE", RESHAPE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
