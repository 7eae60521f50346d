/* partkv._speedups: optional native versions of the two hot loops of partkv/_codec.py.
 *
 *   read_page(page_address, select, keep_stamp) -> list of TableEntity
 *       what _codec.read_page (and _codec.project when `select` is a tuple of names) builds, object
 *       for object: the same classes, equal values.
 *   fill_entity(entity_address, source, pk_required, rk_required, pk_is_set) -> bool
 *       _codec.fill_entity for the common cases; False (before raising anything) when the entity
 *       holds something it leaves to the Python code, which then redoes the entity and raises the
 *       exact errors. What it stored by then is what the Python code stores again.
 *
 * init(...) is called once by _codec with the Python classes and constants used. Pointers come
 * in as integers (int(ffi.cast("uintptr_t", pointer))). The module links libpartkv; _codec checks
 * that it calls the very library cffi loaded (function_address). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <stdint.h>
#include <string.h>

#include "partkv/c.h"

static PyObject* TableEntity_type;    /* partkv.TableEntity */
static PyObject* EntityProperty_type; /* partkv.EntityProperty (a NamedTuple) */
static PyObject* TablesEntityDatetime_type;
static PyObject* UUID_type;
static PyObject* INT64;            /* EdmType.INT64 */
static PyObject* UTC;              /* datetime.timezone.utc */
static PyObject* UUID_UNKNOWN;     /* uuid.SafeUUID.unknown */
static PyObject* entity_m_descr;   /* TableEntity._m slot */
static PyObject* dt_service_descr; /* TablesEntityDatetime._service_value slot */
static PyObject* uuid_int_descr;   /* UUID.int slot */
static PyObject* uuid_safe_descr;  /* UUID.is_safe slot */
static PyObject* str_PartitionKey;
static PyObject* str_RowKey;
static PyObject* str_Timestamp;
static PyObject* str_int;
static int initialized;

#define NAME_CACHE 64
static PyObject* name_bytes[NAME_CACHE]; /* the UTF-8 name last read at each property index */
static PyObject* name_strs[NAME_CACHE];

static int set_slot(PyObject* descr, PyObject* obj, PyObject* value) {
  return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
}

static PyObject* slot_of(PyObject* type, const char* name) {
  PyObject* dict = ((PyTypeObject*)type)->tp_dict;
  PyObject* descr = PyDict_GetItemString(dict, name);
  if (descr == NULL || Py_TYPE(descr)->tp_descr_set == NULL) {
    PyErr_Format(PyExc_TypeError, "partkv._speedups: %s.%s is not a slot",
                 ((PyTypeObject*)type)->tp_name, name);
    return NULL;
  }
  Py_INCREF(descr);
  return descr;
}

static PyObject* sp_init(PyObject* self, PyObject* args) {
  PyObject *entity, *prop, *dt, *uuid, *int64, *utc, *unknown;
  if (!PyArg_ParseTuple(args, "O!O!O!O!OOO", &PyType_Type, &entity, &PyType_Type, &prop,
                        &PyType_Type, &dt, &PyType_Type, &uuid, &int64, &utc, &unknown))
    return NULL;
  PyDateTime_IMPORT;
  if (PyDateTimeAPI == NULL) return NULL;
  if (!PyType_IsSubtype((PyTypeObject*)entity, &PyDict_Type) ||
      !PyType_IsSubtype((PyTypeObject*)prop, &PyTuple_Type) ||
      !PyType_IsSubtype((PyTypeObject*)dt, PyDateTimeAPI->DateTimeType)) {
    PyErr_SetString(PyExc_TypeError, "partkv._speedups.init: unexpected classes");
    return NULL;
  }
  Py_XSETREF(entity_m_descr, slot_of(entity, "_m"));
  Py_XSETREF(dt_service_descr, slot_of(dt, "_service_value"));
  Py_XSETREF(uuid_int_descr, slot_of(uuid, "int"));
  Py_XSETREF(uuid_safe_descr, slot_of(uuid, "is_safe"));
  if (!entity_m_descr || !dt_service_descr || !uuid_int_descr || !uuid_safe_descr) return NULL;
  Py_INCREF(entity);
  Py_XSETREF(TableEntity_type, entity);
  Py_INCREF(prop);
  Py_XSETREF(EntityProperty_type, prop);
  Py_INCREF(dt);
  Py_XSETREF(TablesEntityDatetime_type, dt);
  Py_INCREF(uuid);
  Py_XSETREF(UUID_type, uuid);
  Py_INCREF(int64);
  Py_XSETREF(INT64, int64);
  Py_INCREF(utc);
  Py_XSETREF(UTC, utc);
  Py_INCREF(unknown);
  Py_XSETREF(UUID_UNKNOWN, unknown);
  if (!str_PartitionKey) {
    str_PartitionKey = PyUnicode_InternFromString("PartitionKey");
    str_RowKey = PyUnicode_InternFromString("RowKey");
    str_Timestamp = PyUnicode_InternFromString("Timestamp");
    str_int = PyUnicode_InternFromString("int");
    if (!str_PartitionKey || !str_RowKey || !str_Timestamp || !str_int) return NULL;
  }
  initialized = 1;
  Py_RETURN_NONE;
}

static int check_init(void) {
  if (!initialized) {
    PyErr_SetString(PyExc_RuntimeError, "partkv._speedups.init was not called");
    return 0;
  }
  return 1;
}

static void* address_of(PyObject* value) {
  void* p = PyLong_AsVoidPtr(value);
  if (p == NULL && !PyErr_Occurred())
    PyErr_SetString(PyExc_ValueError, "partkv._speedups: NULL pointer");
  return p;
}

/* ---- dates: proleptic Gregorian days since 0001-01-01 <-> (y, m, d) ---- */

static void civil_from_days(int64_t z, int* year, int* month, int* day) {
  /* z: days since 0001-01-01; Howard Hinnant's algorithm, on days since 0000-03-01. */
  z += 306;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  *year = (int)(y + (m <= 2));
  *month = (int)m;
  *day = (int)d;
}

static int64_t days_from_civil(int y, int m, int d) {
  /* days since 0001-01-01 (date.toordinal() - 1) */
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 306;
}

/* ---- reading ---- */

static PyObject* text_of(const char* p) {
  if (p == NULL) return PyUnicode_FromStringAndSize("", 0);
  return PyUnicode_DecodeUTF8(p, (Py_ssize_t)strlen(p), "replace");
}

static PyObject* property_name(const partkv_entity_t* e, size_t index) {
  size_t length = 0;
  const char* p = partkv_entity_property_name(e, index, &length);
  if (p == NULL) p = "";
  Py_ssize_t n = (Py_ssize_t)strlen(p); /* as ffi.string: up to the first NUL */
  if (index < NAME_CACHE && name_bytes[index] && PyBytes_GET_SIZE(name_bytes[index]) == n &&
      memcmp(PyBytes_AS_STRING(name_bytes[index]), p, (size_t)n) == 0) {
    Py_INCREF(name_strs[index]);
    return name_strs[index];
  }
  PyObject* name = PyUnicode_DecodeUTF8(p, n, "replace");
  if (name == NULL) return NULL;
  PyUnicode_InternInPlace(&name);
  if (index < NAME_CACHE) {
    PyObject* data = PyBytes_FromStringAndSize(p, n);
    if (data == NULL) {
      Py_DECREF(name);
      return NULL;
    }
    Py_XSETREF(name_bytes[index], data);
    Py_INCREF(name);
    Py_XSETREF(name_strs[index], name);
  }
  return name;
}

static PyObject* datetime_of(int64_t ticks) {
  if (ticks < 0 || ticks > PARTKV_MAX_TICKS) {
    /* date.fromordinal refuses these; let Python say so */
    PyObject* models = PyImport_ImportModule("partkv._models");
    if (models == NULL) return NULL;
    PyObject* r = PyObject_CallMethod(models, "datetime_from_ticks", "L", (long long)ticks);
    Py_DECREF(models);
    return r;
  }
  int64_t micros_all = ticks / 10;
  int64_t days = micros_all / 86400000000LL;
  int64_t micros = micros_all % 86400000000LL;
  int y, mo, d;
  civil_from_days(days, &y, &mo, &d);
  int64_t seconds = micros / 1000000;
  int micro = (int)(micros % 1000000);
  PyObject* value = PyDateTimeAPI->DateTime_FromDateAndTime(
      y, mo, d, (int)(seconds / 3600), (int)(seconds / 60 % 60), (int)(seconds % 60), micro, UTC,
      (PyTypeObject*)TablesEntityDatetime_type);
  if (value == NULL) return NULL;
  PyObject* t = PyLong_FromLongLong(ticks);
  if (t == NULL || set_slot(dt_service_descr, value, t) < 0) {
    Py_XDECREF(t);
    Py_DECREF(value);
    return NULL;
  }
  Py_DECREF(t);
  return value;
}

static PyObject* uuid_of(const uint8_t* bytes) {
  static const uint8_t zero[16];
  if (bytes == NULL) bytes = zero;
  PyObject* number = _PyLong_FromByteArray(bytes, 16, 0, 0);
  if (number == NULL) return NULL;
  PyTypeObject* type = (PyTypeObject*)UUID_type;
  PyObject* value = type->tp_alloc(type, 0);
  if (value == NULL) {
    Py_DECREF(number);
    return NULL;
  }
  if (set_slot(uuid_int_descr, value, number) < 0 ||
      set_slot(uuid_safe_descr, value, UUID_UNKNOWN) < 0) {
    Py_DECREF(number);
    Py_DECREF(value);
    return NULL;
  }
  Py_DECREF(number);
  return value;
}

static PyObject* int64_property(int64_t v) {
  PyTypeObject* type = (PyTypeObject*)EntityProperty_type;
  PyObject* number = PyLong_FromLongLong(v);
  if (number == NULL) return NULL;
  PyObject* value = type->tp_alloc(type, 2); /* as tuple.__new__(EntityProperty, ...) */
  if (value == NULL) {
    Py_DECREF(number);
    return NULL;
  }
  PyTuple_SET_ITEM(value, 0, number);
  Py_INCREF(INT64);
  PyTuple_SET_ITEM(value, 1, INT64);
  return value;
}

static PyObject* property_value(const partkv_entity_t* e, size_t index) {
  size_t length = 0;
  switch ((int)partkv_entity_property_type(e, index)) {
    case 1: {
      const char* text = partkv_entity_property_string(e, index, &length);
      if (text == NULL) return PyUnicode_FromStringAndSize("", 0);
      return PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "replace");
    }
    case 7:
      return PyLong_FromLong(partkv_entity_property_int32(e, index));
    case 5:
      return PyFloat_FromDouble(partkv_entity_property_double(e, index));
    case 3:
      return PyBool_FromLong(partkv_entity_property_bool(e, index) != 0);
    case 8:
      return int64_property(partkv_entity_property_int64(e, index));
    case 4:
      return datetime_of(partkv_entity_property_datetime(e, index));
    case 6:
      return uuid_of(partkv_entity_property_guid(e, index));
    case 2: {
      const void* p = partkv_entity_property_binary(e, index, &length);
      if (p == NULL || length == 0) return PyBytes_FromStringAndSize("", 0);
      return PyBytes_FromStringAndSize((const char*)p, (Py_ssize_t)length);
    }
    default:
      return NULL; /* no value: read_entity skips it */
  }
}

static int set_item(PyObject* dict, PyObject* key, PyObject* value) {
  if (value == NULL) return -1;
  int r = PyDict_SetItem(dict, key, value);
  Py_DECREF(value);
  return r;
}

/* read_entity: the whole entity as a TableEntity */
static PyObject* read_entity(const partkv_entity_t* e) {
  size_t length = 0;
  PyObject* entity = PyObject_CallNoArgs(TableEntity_type);
  if (entity == NULL) return NULL;
  if (set_item(entity, str_PartitionKey, text_of(partkv_entity_partition_key(e, &length))) < 0 ||
      set_item(entity, str_RowKey, text_of(partkv_entity_row_key(e, &length))) < 0)
    goto fail;
  PyObject* meta = Py_BuildValue("(NL)", text_of(partkv_entity_etag(e, &length)),
                                 (long long)partkv_entity_timestamp(e));
  if (meta == NULL) goto fail;
  if (set_slot(entity_m_descr, entity, meta) < 0) {
    Py_DECREF(meta);
    goto fail;
  }
  Py_DECREF(meta);
  size_t count = partkv_entity_property_count(e);
  for (size_t i = 0; i < count; ++i) {
    PyObject* name = property_name(e, i);
    if (name == NULL) goto fail;
    PyObject* value = property_value(e, i);
    if (value == NULL) {
      Py_DECREF(name);
      if (PyErr_Occurred()) goto fail;
      continue;
    }
    int r = PyDict_SetItem(entity, name, value);
    Py_DECREF(name);
    Py_DECREF(value);
    if (r < 0) goto fail;
  }
  return entity;
fail:
  Py_DECREF(entity);
  return NULL;
}

/* _codec.project for one entity */
static PyObject* project(PyObject* full, PyObject* names, int keep_stamp) {
  PyObject* projected = PyObject_CallNoArgs(TableEntity_type);
  if (projected == NULL) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(names);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* name = PyTuple_GET_ITEM(names, i);
    PyObject* value = PyDict_GetItemWithError(full, name);
    if (value == NULL) {
      if (PyErr_Occurred()) goto fail;
      value = Py_None;
    }
    if (PyDict_SetItem(projected, name, value) < 0) goto fail;
  }
  PyObject* meta = PyObject_GetAttrString(full, "_m");
  if (meta == NULL) goto fail;
  if (!keep_stamp) {
    PyObject* etag = PyTuple_GET_ITEM(meta, 0);
    PyObject* stripped = PyTuple_Pack(2, etag, Py_None);
    Py_DECREF(meta);
    if (stripped == NULL) goto fail;
    meta = stripped;
  }
  if (set_slot(entity_m_descr, projected, meta) < 0) {
    Py_DECREF(meta);
    goto fail;
  }
  Py_DECREF(meta);
  return projected;
fail:
  Py_DECREF(projected);
  return NULL;
}

static PyObject* sp_read_page(PyObject* self, PyObject* args) {
  PyObject *address, *select;
  int keep_stamp = 0;
  if (!PyArg_ParseTuple(args, "OO|p", &address, &select, &keep_stamp)) return NULL;
  if (!check_init()) return NULL;
  if (select != Py_None && !PyTuple_Check(select)) {
    PyErr_SetString(PyExc_TypeError, "read_page: select must be a tuple of names or None");
    return NULL;
  }
  const partkv_page_t* page = (const partkv_page_t*)address_of(address);
  if (page == NULL) return NULL;
  size_t count = partkv_page_count(page);
  PyObject* list = PyList_New((Py_ssize_t)count);
  if (list == NULL) return NULL;
  for (size_t i = 0; i < count; ++i) {
    PyObject* entity = read_entity(partkv_page_entity(page, i));
    if (entity != NULL && select != Py_None) {
      PyObject* projected = project(entity, select, keep_stamp);
      Py_DECREF(entity);
      entity = projected;
    }
    if (entity == NULL) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, entity);
  }
  return list;
}

static PyObject* sp_read_entity(PyObject* self, PyObject* address) {
  if (!check_init()) return NULL;
  const partkv_entity_t* e = (const partkv_entity_t*)address_of(address);
  if (e == NULL) return NULL;
  return read_entity(e);
}

/* ---- writing ---- */

#define ANNOTATION "@odata.type"

/* The UTF-8 of an exact str (NULL without an exception when it cannot be encoded). */
static const char* utf8_of(PyObject* text, Py_ssize_t* size) {
  const char* data = PyUnicode_AsUTF8AndSize(text, size);
  if (data == NULL) PyErr_Clear();
  return data;
}

/* 1: written; 0: leave it to Python; -1: an exception */
static int fill(partkv_entity_t* e, PyObject* source, int pk_required, int rk_required,
                int pk_is_set) {
  if (!PyDict_Check(source)) return 0;
  /* Mappings whose get/items differ from dict's go to Python. */
  if (!PyDict_CheckExact(source) && (PyObject*)Py_TYPE(source) != TableEntity_type) return 0;
  Py_ssize_t size;
  const char* data;
  PyObject* pk = PyDict_GetItemWithError(source, str_PartitionKey);
  if (pk == NULL && PyErr_Occurred()) return -1;
  PyObject* rk = PyDict_GetItemWithError(source, str_RowKey);
  if (rk == NULL && PyErr_Occurred()) return -1;
  if (pk == Py_None) pk = NULL;
  if (rk == Py_None) rk = NULL;
  if ((pk == NULL && pk_required) || (rk == NULL && rk_required)) return 0;
  if (pk != NULL && !PyUnicode_CheckExact(pk)) return 0;
  if (rk != NULL && !PyUnicode_CheckExact(rk)) return 0;
  if (pk == NULL) {
    partkv_entity_set_partition_key(e, "", 0);
  } else if (!pk_is_set) {
    if ((data = utf8_of(pk, &size)) == NULL) return 0;
    partkv_entity_set_partition_key(e, data, (size_t)size);
  }
  if (rk == NULL) {
    partkv_entity_set_row_key(e, "", 0);
  } else {
    if ((data = utf8_of(rk, &size)) == NULL) return 0;
    partkv_entity_set_row_key(e, data, (size_t)size);
  }
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(source, &pos, &key, &value)) {
    if (!PyUnicode_CheckExact(key)) return 0;
    Py_ssize_t nsize;
    const char* name = utf8_of(key, &nsize);
    if (name == NULL) return 0;
    size_t nlen = (size_t)nsize;
    if (nlen >= sizeof ANNOTATION - 1 &&
        memcmp(name + nlen - (sizeof ANNOTATION - 1), ANNOTATION, sizeof ANNOTATION - 1) == 0)
      return 0; /* annotations: Python */
    if ((nlen == 12 && memcmp(name, "PartitionKey", 12) == 0) ||
        (nlen == 6 && memcmp(name, "RowKey", 6) == 0) ||
        (nlen == 9 && memcmp(name, "Timestamp", 9) == 0) ||
        (nlen >= 6 && memcmp(name, "odata.", 6) == 0))
      continue;
    PyTypeObject* cls = Py_TYPE(value);
    if (cls == &PyUnicode_Type) {
      if ((data = utf8_of(value, &size)) == NULL) return 0;
      partkv_entity_set_string(e, name, nlen, data, (size_t)size);
    } else if (cls == &PyLong_Type) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
      if (overflow || v < INT32_MIN || v > INT32_MAX) return 0;
      partkv_entity_set_int32(e, name, nlen, (int32_t)v);
    } else if (cls == &PyFloat_Type) {
      partkv_entity_set_double(e, name, nlen, PyFloat_AS_DOUBLE(value));
    } else if (cls == &PyBool_Type) {
      partkv_entity_set_bool(e, name, nlen, value == Py_True);
    } else if ((PyObject*)cls == EntityProperty_type) {
      if (PyTuple_GET_SIZE(value) != 2 || PyTuple_GET_ITEM(value, 1) != INT64) return 0;
      PyObject* raw = PyTuple_GET_ITEM(value, 0);
      if (Py_TYPE(raw) != &PyLong_Type) return 0;
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(raw, &overflow);
      if (overflow) return 0;
      partkv_entity_set_int64(e, name, nlen, (int64_t)v);
    } else if ((PyObject*)cls == UUID_type) {
      PyObject* number = PyObject_GetAttr(value, str_int);
      if (number == NULL) {
        PyErr_Clear();
        return 0;
      }
      uint8_t bytes[16];
#if PY_VERSION_HEX >= 0x030D0000
      int r = PyLong_Check(number) ? _PyLong_AsByteArray((PyLongObject*)number, bytes, 16, 0, 0, 1)
                                   : -1;
#else
      int r =
          PyLong_Check(number) ? _PyLong_AsByteArray((PyLongObject*)number, bytes, 16, 0, 0) : -1;
#endif
      Py_DECREF(number);
      if (r < 0) {
        PyErr_Clear();
        return 0;
      }
      partkv_entity_set_guid(e, name, nlen, bytes);
    } else if (cls == PyDateTimeAPI->DateTimeType) {
      if (PyDateTime_DATE_GET_TZINFO(value) != UTC) return 0;
      int64_t days = days_from_civil(PyDateTime_GET_YEAR(value), PyDateTime_GET_MONTH(value),
                                     PyDateTime_GET_DAY(value));
      int64_t ticks =
          ((days * 86400 + PyDateTime_DATE_GET_HOUR(value) * 3600 +
            PyDateTime_DATE_GET_MINUTE(value) * 60 + PyDateTime_DATE_GET_SECOND(value)) *
               10000000LL +
           PyDateTime_DATE_GET_MICROSECOND(value) * 10LL);
      partkv_entity_set_datetime(e, name, nlen, ticks);
    } else if (value == Py_None) {
      continue;
    } else {
      return 0;
    }
  }
  return 1;
}

static PyObject* sp_fill_entity(PyObject* self, PyObject* args) {
  PyObject *address, *source;
  int pk_required = 1, rk_required = 1, pk_is_set = 0;
  if (!PyArg_ParseTuple(args, "OO|ppp", &address, &source, &pk_required, &rk_required, &pk_is_set))
    return NULL;
  if (!check_init()) return NULL;
  partkv_entity_t* e = (partkv_entity_t*)address_of(address);
  if (e == NULL) return NULL;
  int r = fill(e, source, pk_required, rk_required, pk_is_set);
  if (r < 0) return NULL;
  return PyBool_FromLong(r);
}

/* clear_properties + fill + partkv_batch_add(op, if_match ""): True when added, False when the
 * entity is left to Python (nothing added). */
static PyObject* sp_batch_add(PyObject* self, PyObject* args) {
  PyObject *batch_address, *address, *source;
  int op, pk_required = 1, rk_required = 1, pk_is_set = 0;
  if (!PyArg_ParseTuple(args, "OOiO|ppp", &batch_address, &address, &op, &source, &pk_required,
                        &rk_required, &pk_is_set))
    return NULL;
  if (!check_init()) return NULL;
  partkv_batch_t* batch = (partkv_batch_t*)address_of(batch_address);
  if (batch == NULL) return NULL;
  partkv_entity_t* e = (partkv_entity_t*)address_of(address);
  if (e == NULL) return NULL;
  partkv_entity_clear_properties(e);
  int r = fill(e, source, pk_required, rk_required, pk_is_set);
  if (r < 0) return NULL;
  if (r) partkv_batch_add(batch, (partkv_op_t)op, e, "", 0);
  return PyBool_FromLong(r);
}

static PyObject* sp_function_address(PyObject* self, PyObject* unused) {
  return PyLong_FromVoidPtr((void*)&partkv_entity_create);
}

static PyMethodDef methods[] = {
    {"init", sp_init, METH_VARARGS,
     "init(TableEntity, EntityProperty, TablesEntityDatetime, UUID, "
     "EdmType.INT64, timezone.utc, SafeUUID.unknown)"},
    {"read_page", sp_read_page, METH_VARARGS,
     "read_page(page_address, select_names_or_None, keep_stamp=False) -> list of TableEntity"},
    {"read_entity", sp_read_entity, METH_O, "read_entity(entity_address) -> TableEntity"},
    {"fill_entity", sp_fill_entity, METH_VARARGS,
     "fill_entity(entity_address, source, pk_required, rk_required, pk_is_set) -> bool"},
    {"batch_add", sp_batch_add, METH_VARARGS,
     "batch_add(batch_address, entity_address, op, source, pk_required, rk_required, pk_is_set)"
     " -> bool"},
    {"function_address", sp_function_address, METH_NOARGS,
     "The address of partkv_entity_create this module calls."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "partkv._speedups",
                                    "Native hot loops of partkv._codec (optional).",
                                    -1,
                                    methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
