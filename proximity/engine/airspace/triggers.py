"""Messages derived from advisories (ECC-PROXIMITY.md section 3, "Triggers").

The structure follows the reference (two ``proximity_transmit`` per Traffic Advisory, one
``proximity_steer`` and one ``proximity_hold`` per Resolution); the wording is ours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["build_triggers"]


def _pct(risk: float) -> int:
    return round(min(1.0, max(0.0, risk)) * 100)


def _transmit(to: str, other: str, risk: float) -> dict[str, Any]:
    text = (
        f"Proximity {_pct(risk)}%: you and {other} are converging in code-space. "
        f"Tell {other} what you are working on and check whether your changes overlap."
    )
    return {"to": to, "from": other, "type": "proximity_transmit", "risk": risk, "content": text}


def _steer(steer: str, hold: str, risk: float, conflict: bool) -> dict[str, Any]:
    cause = "a merge conflict is already certain" if conflict else f"collision risk {_pct(risk)}%"
    text = (
        f"Resolution advisory ({cause}): {hold} holds right-of-way. Steer away: move to a "
        f"different file or area, or coordinate with {hold} before editing the shared region."
    )
    return {"to": steer, "from": hold, "type": "proximity_steer", "risk": risk, "content": text}


def _hold(hold: str, steer: str, risk: float) -> dict[str, Any]:
    text = (
        f"Resolution advisory (collision risk {_pct(risk)}%): you hold right-of-way; "
        f"{steer} has been asked to steer away from your area. Carry on."
    )
    return {"to": hold, "from": steer, "type": "proximity_hold", "risk": risk, "content": text}


def build_triggers(advisories: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``{to, from, type, risk, content}`` messages, in advisory order.

    A Traffic Advisory asks both agents to transmit; a Resolution tells the steering agent to
    move away and the holder to carry on. An advisory flagged ``escalated`` (a closing Traffic
    Advisory in radar-v1) already carries steer and hold, so it is messaged as a Resolution.
    """
    out: list[dict[str, Any]] = []
    for adv in advisories:
        risk = float(adv["risk"])
        if adv.get("steer") is not None and adv.get("hold") is not None:
            out.append(_steer(adv["steer"], adv["hold"], risk, bool(adv.get("conflict"))))
            out.append(_hold(adv["hold"], adv["steer"], risk))
        elif adv.get("level") != "clear":
            out.append(_transmit(adv["a"], adv["b"], risk))
            out.append(_transmit(adv["b"], adv["a"], risk))
    return out
