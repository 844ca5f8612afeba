"""Python analogues of the reference's JS hardening tests (ECC-PROXIMITY.md section 8).

The JS suite plants ``toJSON`` hooks, accessors, sparse arrays, ``toString`` objects, an
``Array.prototype.toJSON`` and a throwing Proxy. Python's equivalents are subclasses of
dict/list/str whose dunder methods run code, foreign objects, ``bool`` posing as ``int`` and
non-finite floats. Each must be rejected by exact type checks *before* any of its methods
runs, and failures must stay generic.
"""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

import pytest

from proximity.engine.trail import GENERIC_MESSAGE, ShadowTrailError, verify_shadow_trail
from proximity.engine.trail.errors import InvalidTrail
from tests.engine.trail.factory import observation, round_trip, start
from tests.engine.trail.test_tamper import SECRET, reason_of, rehash


class Calls:
    count = 0


def _hook(*_: object, **__: object) -> Any:
    Calls.count += 1
    raise AssertionError("a hook of a foreign object ran")


class HookedList(list[Any]):  # analogue of an array with a toJSON hook or accessor elements
    __iter__ = __getitem__ = __len__ = __eq__ = __contains__ = _hook


class HookedDict(dict[str, Any]):  # analogue of an object with getters / a non-Object prototype
    __iter__ = __getitem__ = __len__ = keys = items = __contains__ = _hook


class HookedStr(str):  # analogue of a value with toString / valueOf hooks
    __eq__ = __ne__ = __hash__ = __str__ = __format__ = _hook


class Coercible:  # analogue of ``{toString() {...}}`` given as a hash
    __str__ = __eq__ = __ne__ = __format__ = __len__ = _hook


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    Calls.count = 0


def test_list_with_hooks_is_rejected_without_running_them() -> None:
    hooked = round_trip(start())
    paths = hooked["receipts"][0]["payload"]["observations"][0]["writePaths"]
    hooked["receipts"][0]["payload"]["observations"][0]["writePaths"] = HookedList(paths)
    assert reason_of(hooked) == "receipts[0].payload.observations[0].writePaths: not a plain array"
    assert Calls.count == 0


def test_dict_with_accessor_hooks_is_rejected_without_running_them() -> None:
    accessor = round_trip(start())
    observations = accessor["receipts"][0]["payload"]["observations"]
    observations[0] = HookedDict(observations[0])
    assert reason_of(accessor) == "receipts[0].payload.observations[0]: not a plain object"
    assert Calls.count == 0


@pytest.mark.parametrize("container", [tuple, iter])
def test_non_list_sequences_are_rejected_like_sparse_arrays(container: Any) -> None:
    sparse = round_trip(start())
    observation_row = sparse["receipts"][0]["payload"]["observations"][0]
    observation_row["writePaths"] = container(observation_row["writePaths"])
    assert reason_of(sparse).endswith("writePaths: not a plain array")


def test_hash_given_as_a_coercible_object_is_rejected_without_calling_it() -> None:
    trail = round_trip(start())
    trail["receipts"][0]["hash"] = Coercible()
    assert reason_of(trail) == "receipts[0]: hash fields are not 64 lower-case hex digits"
    assert Calls.count == 0


def test_string_subclass_with_comparison_hooks_is_rejected_without_calling_them() -> None:
    trail = round_trip(start())
    trail["receipts"][0]["payload"]["observations"][0]["agentId"] = HookedStr("a")
    with pytest.raises(ShadowTrailError):
        verify_shadow_trail(trail)
    with pytest.raises(ShadowTrailError):
        start(observation("a", agentId=HookedStr("a")))
    assert Calls.count == 0


def test_process_wide_json_hooks_are_never_consulted(monkeypatch: pytest.MonkeyPatch) -> None:
    # Analogue of Array.prototype.toJSON: hashing must not route through json's hookable encoder.
    persisted = round_trip(start())
    monkeypatch.setattr(json.JSONEncoder, "default", _hook)
    monkeypatch.setattr(json.JSONEncoder, "encode", _hook)
    assert verify_shadow_trail(persisted) is None
    assert Calls.count == 0


def _hostile_object() -> object:
    class Hostile:
        """Analogue of a Proxy whose traps throw private text."""

        def __getattribute__(self, name: str) -> Any:
            raise RuntimeError(SECRET)

    return Hostile()


def _hostile_receipts() -> object:
    class HostileDict(dict):  # type: ignore[type-arg]
        def __getitem__(self, key: object) -> Any:
            raise RuntimeError(SECRET)

    return [HostileDict(a=1)]


@pytest.mark.parametrize("make_receipts", [_hostile_object, _hostile_receipts])
def test_exotic_failures_are_generic_and_do_not_echo_private_text(make_receipts: Any) -> None:
    trail = {**start(), "receipts": make_receipts()}
    with pytest.raises(ShadowTrailError) as caught:
        verify_shadow_trail(trail)
    assert str(caught.value) == GENERIC_MESSAGE
    assert SECRET not in caught.value.reason
    assert caught.value.__cause__ is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scopeRevision", True),  # bool is an int subclass in Python, not a number in JS
        ("scopeRevision", 1.0),  # stricter than JS, which cannot tell 1.0 from 1
        ("scopeRevision", 2**53),  # beyond Number.MAX_SAFE_INTEGER
        ("scopeRevision", 0),
        ("footprint", HookedStr("complete")),
        ("readPaths", HookedList()),
    ],
)
def test_observation_fields_need_exact_plain_types(field: str, value: object) -> None:
    with pytest.raises(ShadowTrailError) as caught:
        start(observation("a", **{field: value}))
    assert caught.value.reason.startswith(f"observations[0].{field}:")
    assert Calls.count == 0


def test_non_string_keys_are_rejected() -> None:
    with pytest.raises(ShadowTrailError) as caught:
        start(graph={"adjacency": {1: []}})
    assert caught.value.reason == "graph.adjacency: non-string key"


@pytest.mark.parametrize("risk", [math.nan, math.inf, -0.5, 1.5, True, "0.5", None])
def test_risk_must_be_a_finite_number_in_the_unit_interval(risk: object) -> None:
    forged = round_trip(start())
    forged["receipts"][1]["payload"]["heuristicRisk"] = risk
    with contextlib.suppress(InvalidTrail):  # the encoder itself refuses non-finite numbers
        rehash(forged, 1)
    assert reason_of(forged) == "receipts[1].payload.heuristicRisk: not a number in [0, 1]"


def test_integral_risk_written_as_an_integer_verifies_like_in_javascript() -> None:
    trail = round_trip(start())
    assert trail["receipts"][1]["payload"]["heuristicRisk"] == 1
    trail["receipts"][1]["payload"]["heuristicRisk"] = 1  # what JSON.stringify writes for 1.0
    assert verify_shadow_trail(trail) is None
    trail["receipts"][1]["payload"]["heuristicRisk"] = 1.0
    assert verify_shadow_trail(trail) is None
