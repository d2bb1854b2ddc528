# SPDX-License-Identifier: MIT
"""Offline schema validation of Kubernetes objects against the API models of
python3-kubernetes (Debian bookworm: 22.6, the 1.22 API).

Each model class carries `openapi_types` (field -> type) and `attribute_map`
(field -> JSON key). An object is walked against its kind's model: a key the
model does not have, a value of the wrong type, or a required field left out
is an error naming its path (`DaemonSet/ibvf-metrics: spec.template.spec.
containers[0].securityContext.privilegd: unknown field`). The client library
itself ignores unknown keys when it deserializes, which is why this walks."""
import functools
import re

import kubernetes.client as kc

# Quantities (resources, emptyDir sizeLimit) are strings in the models, but the
# API takes a number too (`memory: 1`), as it takes an int-or-string "object".
QUANTITY_PARENTS = ("limits", "requests", "sizeLimit", "capacity", "hard")

_LIST = re.compile(r"^list\[(.+)\]$")
_DICT = re.compile(r"^dict\(([^,]+), (.+)\)$")


def model_for(api_version, kind):
    """The model class of apiVersion/kind (apps/v1 DaemonSet: V1DaemonSet)."""
    version = api_version.split("/")[-1]
    name = version[0].upper() + version[1:] + kind
    return getattr(kc, name, None)


@functools.lru_cache(maxsize=None)
def required_fields(cls):
    """The fields whose setter refuses None, found by building the model with
    each in turn given (its setters say which one is missing first)."""
    given = {}
    for _ in range(len(cls.openapi_types) + 1):
        try:
            cls(**given)
            return frozenset(given)
        except ValueError as e:
            m = re.search(r"Invalid value for `(\w+)`, must not be `None`", str(e))
            if not m or m.group(1) in given:
                return frozenset(given)
            given[m.group(1)] = "x"
        except TypeError:
            return frozenset(given)
    return frozenset(given)


def _json_keys(cls):
    return {json: attr for attr, json in cls.attribute_map.items()}


def _check_scalar(typ, value, path, parent, errors):
    ok = {
        "str": lambda v: isinstance(v, str),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "object": lambda v: True,
        "datetime": lambda v: isinstance(v, str),
        "date": lambda v: isinstance(v, str),
    }[typ]
    if typ == "str" and parent in QUANTITY_PARENTS and isinstance(value, (int, float)):
        return
    if not ok(value):
        errors.append(f"{path}: {value!r} is not of type {typ}")


def check_value(typ, value, path, errors, parent=""):
    if value is None:
        return
    m = _LIST.match(typ)
    if m:
        if not isinstance(value, list):
            errors.append(f"{path}: a {type(value).__name__}, not a list")
            return
        for i, v in enumerate(value):
            check_value(m.group(1), v, f"{path}[{i}]", errors, parent)
        return
    m = _DICT.match(typ)
    if m:
        if not isinstance(value, dict):
            errors.append(f"{path}: a {type(value).__name__}, not a map")
            return
        for k, v in value.items():
            if not isinstance(k, str):
                errors.append(f"{path}: key {k!r} is not a string")
            check_value(m.group(2), v, f"{path}.{k}", errors, path.rsplit(".", 1)[-1])
        return
    cls = getattr(kc, typ, None)
    if cls is None:
        _check_scalar(typ, value, path, parent, errors)
        return
    if not isinstance(value, dict):
        errors.append(f"{path}: a {type(value).__name__}, not an object ({typ})")
        return
    check_object(cls, value, path, errors)


def check_object(cls, obj, path, errors):
    keys = _json_keys(cls)
    for k, v in obj.items():
        attr = keys.get(k)
        if attr is None:
            errors.append(f"{path + '.' if path else ''}{k}: unknown field of {cls.__name__}")
            continue
        check_value(cls.openapi_types[attr], v, f"{path + '.' if path else ''}{k}", errors, k)
    for attr in required_fields(cls):
        if obj.get(cls.attribute_map[attr]) is None:
            where = path or "(top)"
            errors.append(f"{where}: required field '{cls.attribute_map[attr]}' missing")


def validate(obj):
    """Errors of one object (a dict from YAML), each naming kind/name and path."""
    kind, av = obj.get("kind"), obj.get("apiVersion")
    name = (obj.get("metadata") or {}).get("name", "?")
    cls = model_for(av or "", kind or "") if kind and av else None
    if cls is None:
        return [f"{kind}/{name}: no model for apiVersion '{av}' kind '{kind}'"]
    errors = []
    check_object(cls, obj, "", errors)
    return [f"{kind}/{name}: {e}" for e in errors]
