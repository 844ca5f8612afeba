"""A scripted model on 127.0.0.1 that the real harness programs talk to instead of their vendor.

One server speaks the three wire formats the harnesses use: the Anthropic Messages stream
(Claude Code, ``ANTHROPIC_BASE_URL``), the OpenAI Responses stream (Codex, a custom model
provider's ``base_url``) and Gemini's ``generateContent`` / ``streamGenerateContent`` (Gemini
CLI, ``GOOGLE_GEMINI_BASE_URL``). Its script is a list of tool calls: the n-th answer of a
conversation that already holds n tool results is the n-th call, and after the last one a
final text. Every request is kept, so a test reads what the harness sent back to the model
(the tool results, the context our hooks added). Standard library only.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ModelServer", "ToolCall"]

FINAL_TEXT = "Done."


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the model makes: the harness's own tool name and its arguments.

    ``raw``: Codex's freeform tools (``apply_patch``) take their input as a plain string.
    """

    name: str
    arguments: dict[str, Any] | str


@dataclass
class ModelServer:
    """The scripted model; ``requests`` holds every (path, body) the harness posted."""

    script: list[ToolCall] = field(default_factory=list)
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> str:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:  # model lists, health probes
                owner._json(self, {"data": [], "models": [], "object": "list"})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with owner._lock:
                    owner.requests.append((self.path, body))
                owner._answer(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- what the harness sent ----------------------------------------------------------------

    def bodies(self, marker: str) -> list[dict[str, Any]]:
        with self._lock:
            return [body for path, body in self.requests if marker in path]

    def sent_text(self) -> str:
        """Everything the harness sent to the model, as one JSON text (for searching)."""
        with self._lock:
            return "\n".join(json.dumps(body, ensure_ascii=False) for _, body in self.requests)

    # -- answers ---------------------------------------------------------------------------------

    def _next(self, done: int) -> ToolCall | None:
        return self.script[done] if done < len(self.script) else None

    def _answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        path = handler.path
        if "/v1/messages" in path:
            if "count_tokens" in path:
                self._json(handler, {"input_tokens": 10})
            else:
                self._anthropic(handler, body)
        elif path.rstrip("/").endswith("/responses"):
            self._responses(handler, body)
        elif ":countTokens" in path:
            self._json(handler, {"totalTokens": 10})
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(handler, body, stream=":streamGenerateContent" in path)
        else:
            self._json(handler, {})

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, data: object, status: int = 200) -> None:
        out = json.dumps(data).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(out)))
        handler.end_headers()
        handler.wfile.write(out)

    @staticmethod
    def _sse(handler: BaseHTTPRequestHandler, events: Iterator[tuple[str | None, object]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        out = "".join(chunks).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Content-Length", str(len(out)))
        handler.end_headers()
        handler.wfile.write(out)

    # Anthropic Messages -------------------------------------------------------------------------

    def _anthropic(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        done = sum(
            1
            for message in body.get("messages") or ()
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )
        # Side requests (titles, summaries) carry no tools: they get text.
        call = self._next(done) if body.get("tools") else None
        message_id = f"msg_{uuid.uuid4().hex[:20]}"
        usage = {"input_tokens": 10, "output_tokens": 5}
        if call is None:
            block: dict[str, Any] = {"type": "text", "text": FINAL_TEXT}
            stop = "end_turn"
        else:
            block = {
                "type": "tool_use",
                "id": f"toolu_{uuid.uuid4().hex[:20]}",
                "name": call.name,
                "input": call.arguments,
            }
            stop = "tool_use"
        if not body.get("stream"):
            self._json(
                handler,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "scripted"),
                    "content": [block],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return

        def events() -> Iterator[tuple[str | None, object]]:
            yield (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": body.get("model", "scripted"),
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 1},
                    },
                },
            )
            if block["type"] == "text":
                start: dict[str, Any] = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": FINAL_TEXT}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": start},
            )
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": delta},
            )
            yield ("content_block_stop", {"type": "content_block_stop", "index": 0})
            yield (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            )
            yield ("message_stop", {"type": "message_stop"})

        self._sse(handler, events())

    # OpenAI Responses ---------------------------------------------------------------------------

    def _responses(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        outputs = {"function_call_output", "custom_tool_call_output"}
        done = sum(
            1
            for item in body.get("input") or ()
            if isinstance(item, dict) and item.get("type") in outputs
        )
        call = self._next(done)
        response_id = f"resp_{uuid.uuid4().hex[:20]}"
        if call is None:
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{uuid.uuid4().hex[:20]}",
                "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
            }
        elif isinstance(call.arguments, str):
            item = {
                "type": "custom_tool_call",
                "id": f"ctc_{uuid.uuid4().hex[:20]}",
                "call_id": f"call_{uuid.uuid4().hex[:20]}",
                "name": call.name,
                "input": call.arguments,
                "status": "completed",
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{uuid.uuid4().hex[:20]}",
                "call_id": f"call_{uuid.uuid4().hex[:20]}",
                "name": call.name,
                "arguments": json.dumps(call.arguments),
                "status": "completed",
            }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        response = {"id": response_id, "object": "response", "status": "completed", "usage": usage}

        def events() -> Iterator[tuple[str | None, object]]:
            yield (
                "response.created",
                {"type": "response.created", "response": {**response, "status": "in_progress"}},
            )
            yield (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            )
            yield (
                "response.completed",
                {"type": "response.completed", "response": {**response, "output": [item]}},
            )

        self._sse(handler, events())

    # Gemini generateContent ---------------------------------------------------------------------

    def _gemini(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], *, stream: bool
    ) -> None:
        done = sum(
            1
            for content in body.get("contents") or ()
            for part in content.get("parts") or ()
            if isinstance(part, dict) and "functionResponse" in part
        )
        has_tools = bool(body.get("tools"))
        call = self._next(done) if has_tools else None
        if call is None:
            # A side request (routing, next speaker, loop check) asks for JSON of a schema.
            config = body.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            wants_json = config.get("responseMimeType") == "application/json"
            text = json.dumps(_filled(schema)) if wants_json and schema else FINAL_TEXT
            part: dict[str, Any] = {"text": text}
        else:
            part = {"functionCall": {"name": call.name, "args": call.arguments}}
        answer = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "scripted",
        }
        if stream:
            self._sse(handler, iter([(None, answer)]))
        else:
            self._json(handler, answer)


def _filled(schema: Any) -> Any:
    """A small value of a JSON schema: the conversation ends with the user, nothing is complex."""
    if not isinstance(schema, dict):
        return None
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        choices = list(schema["enum"])
        return "user" if "user" in choices else choices[0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {key: _filled(value) for key, value in props.items()}
    if kind == "array":
        return []
    if kind in {"number", "integer"}:
        return 1
    if kind == "boolean":
        return False
    return "scripted"
