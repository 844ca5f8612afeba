"""Each harness's own answer format for a decision: what goes to stdout, and the exit code.

The exit code is always 0: every decision travels as JSON on stdout (Claude Code, Codex and
Gemini CLI read it there; exit 2 would make them show stderr instead). "No decision" is no
output at all, so the person's own permission prompt still runs.
"""

from __future__ import annotations

import json

from proximity.agent.decide import Decision

__all__ = ["render"]


def _claude_like(decision: Decision, event_name: str, *, can_ask: bool) -> dict[str, object]:
    if decision.kind in {"deny", "ask"} and event_name == "PreToolUse":
        # Codex documents "ask" as unsupported (the hook counts as failed and the tool runs),
        # so there an "ask" holds the edit back like a denial, as for Gemini CLI.
        kind = decision.kind if can_ask else "deny"
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": kind,
                "permissionDecisionReason": decision.text,
            }
        }
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": decision.text}}


def _gemini(decision: Decision, event_name: str) -> dict[str, object]:
    if decision.kind in {"deny", "ask"} and event_name == "BeforeTool":
        # Gemini CLI has no "ask" answer: the person is told and the edit is held back.
        out: dict[str, object] = {"decision": "deny", "reason": decision.text}
        if decision.kind == "ask":
            out["systemMessage"] = decision.text
        return out
    if event_name == "BeforeTool":
        # Gemini ignores context here: the hook kept it for AfterTool (deferred.py), and the
        # person sees its first line now.
        return {"systemMessage": decision.text.splitlines()[0]}
    return {
        "systemMessage": decision.text.splitlines()[0] if decision.text else "",
        "hookSpecificOutput": {"hookEventName": event_name, "additionalContext": decision.text},
    }


# Cursor's flat answer (https://cursor.com/docs/hooks.md). Only its gates carry a permission: an
# explicit "allow" would skip the person's own approval, so none is ever sent. preToolUse accepts
# "ask" but does not enforce it, so an "ask" there holds the edit back (as for Gemini CLI) and
# tells the person why; beforeShellExecution enforces "ask". Neither gate has a context field:
# an advisory travels as the two messages with no permission key, and the edit proceeds. A hook
# that crashes or times out lets the action through (Cursor's default); radar never sets the
# entry's failClosed, under which an empty answer (our "no decision") would count as a failure.
_CURSOR_GATES = frozenset({"preToolUse", "beforeShellExecution"})
_CURSOR_CONTEXT = frozenset({"sessionStart", "postToolUse"})


def _cursor(decision: Decision, event_name: str) -> dict[str, object]:
    # Both messages carry the whole text: Cursor documents agent_message as the model's, yet
    # field reports say its agent reads user_message; either way the reason reaches the model.
    messages: dict[str, object] = {"user_message": decision.text, "agent_message": decision.text}
    if event_name in _CURSOR_GATES and decision.kind in {"deny", "ask"}:
        enforced = decision.kind == "deny" or event_name == "beforeShellExecution"
        return {"permission": decision.kind if enforced else "deny", **messages}
    if event_name in _CURSOR_GATES:
        return messages
    if event_name in _CURSOR_CONTEXT:
        return {"additional_context": decision.text}
    return {}  # afterFileEdit, beforeSubmitPrompt: no field reaches the model


def render(harness: str, decision: Decision, event_name: str) -> str:
    """The stdout text for ``decision`` ("" for no decision)."""
    if decision.kind == "none" or not decision.text:
        return ""
    if harness == "gemini":
        body = _gemini(decision, event_name)
    elif harness == "cursor":
        body = _cursor(decision, event_name)
    else:
        body = _claude_like(decision, event_name, can_ask=harness == "claude")
    return json.dumps(body, ensure_ascii=False) if body else ""
